import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { resultUrlProblem } from "../../../core/media/result_url.ts";

Deno.test("resultUrlProblem: only absolute http(s) URLs may be stored or linked", () => {
  for (
    const url of ["https://cdn.example/v.mp4", "http://127.0.0.1:9/files/a.png", "HTTPS://A.B/c"]
  ) {
    assertEquals(resultUrlProblem(url), null, url);
  }
  for (
    const url of [
      "javascript:alert(1)",
      " JavaScript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "data:image/png;base64,AAAA",
      "vbscript:x",
      "file:///etc/passwd",
      "blob:https://a.b/1",
    ]
  ) {
    const problem = resultUrlProblem(url) ?? "";
    assertOk(problem.includes("not http(s)"), `${url}: ${problem}`);
    assertOk(!problem.includes("alert") && !problem.includes("passwd"), problem);
  }
  assertOk(resultUrlProblem("/relative/path")?.includes("not a valid absolute URL"));
});
