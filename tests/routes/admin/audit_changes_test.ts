import { assertEquals } from "../../helpers/assert.ts";
import { adminTarget } from "../../../routes/admin/audit_changes.ts";

Deno.test("adminTarget() reads the area and the id from any admin route, present or later", () => {
  assertEquals(adminTarget("/admin/keys", "/admin/keys"), { area: "keys", id: null });
  assertEquals(adminTarget("/admin/keys/:id/credit", "/admin/keys/key_1/credit"), {
    area: "keys",
    id: "key_1",
  });
  assertEquals(adminTarget("/admin/models/:id", "/admin/models/gpt%204o"), {
    area: "models",
    id: "gpt 4o",
  });
  assertEquals(adminTarget("/admin/webhooks/:id/test", "/admin/webhooks/wh_9/test"), {
    area: "webhooks",
    id: "wh_9",
  });
  assertEquals(adminTarget("/admin/models/:id", "/admin/models/%zz"), {
    area: "models",
    id: "%zz",
  });
});
