import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { UndeliverableImage, undeliverableReason } from "../../../core/images/deliver_images.ts";
import { GatewayError } from "../../../core/errors.ts";

Deno.test("undeliverableReason: the gateway's own reasons as they are", () => {
  assertEquals(
    undeliverableReason(new UndeliverableImage("the image is larger than 20 MB")),
    "the image is larger than 20 MB",
  );
  assertEquals(
    undeliverableReason(new GatewayError("x", 415, "the bytes are text/html")),
    "the bytes are text/html",
  );
});

Deno.test("undeliverableReason: anything else is a plain sentence, never its own text", () => {
  const logged: string[] = [];
  const consoleError = console.error;
  console.error = (line: string) => void logged.push(line);
  try {
    for (
      const error of [
        new Deno.errors.NotFound("No such file or directory (os error 2): open '/var/lib/gw/x'"),
        new TypeError("Value too large (max 65536 bytes)"),
        "a string",
      ]
    ) {
      const reason = undeliverableReason(error);
      assertOk(reason.startsWith("the gateway could not store or encode the image"), reason);
      assertOk(!reason.includes("/var") && !reason.includes("65536"), reason);
    }
  } finally {
    console.error = consoleError;
  }
  assertEquals(logged.length, 3);
  assertOk(logged[0].includes("/var/lib/gw/x"), "the detail is in the server log");
});
