import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { checkCsrfToken, crossSiteProblem } from "../../../routes/console/csrf.ts";

const OWN = "https://gw.example";
const none = { origin: null, secFetchSite: null, referer: null };

Deno.test("crossSiteProblem() accepts only the own origin, from Origin, else Sec-Fetch-Site, else Referer", () => {
  assertEquals(crossSiteProblem({ ...none, origin: OWN }, OWN), null);
  assertOk(crossSiteProblem({ ...none, origin: "https://evil.example" }, OWN));
  assertOk(crossSiteProblem({ ...none, origin: "null" }, OWN));
  // Origin decides even when the other headers say same-origin.
  assertOk(
    crossSiteProblem(
      { origin: "https://evil.example", secFetchSite: "same-origin", referer: OWN },
      OWN,
    ),
  );
  assertEquals(crossSiteProblem({ ...none, secFetchSite: "same-origin" }, OWN), null);
  assertOk(crossSiteProblem({ ...none, secFetchSite: "same-site" }, OWN));
  assertOk(crossSiteProblem({ ...none, secFetchSite: "cross-site" }, OWN));
  assertEquals(crossSiteProblem({ ...none, referer: `${OWN}/console/keys` }, OWN), null);
  assertOk(crossSiteProblem({ ...none, referer: "https://gw.example.evil.example/" }, OWN));
  assertOk(crossSiteProblem({ ...none, referer: "not a url" }, OWN));
  // Not a browser: the CSRF token alone decides.
  assertEquals(crossSiteProblem(none, OWN), null);
});

Deno.test("checkCsrfToken() throws 403 unless the token is the session's", () => {
  checkCsrfToken("abc", "abc");
  for (const presented of [undefined, "", "abd", "abcd"]) {
    let status = 0;
    try {
      checkCsrfToken(presented, "abc");
    } catch (error) {
      status = (error as { status: number }).status;
    }
    assertEquals(status, 403, String(presented));
  }
});
