import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { Field } from "../../../routes/console/field.tsx";

Deno.test("Field: a label for a text input named and identified by its name", () => {
  const html = String(Field({ name: "group", label: "Group", value: "" }));
  assertEquals(
    html,
    '<div><label for="group">Group</label><input id="group" name="group" type="text" value=""/></div>',
  );
});

Deno.test("Field: a hint under the control, which names it with aria-describedby", () => {
  const html = String(
    Field({
      name: "url",
      id: "new-url",
      label: "URL",
      type: "url",
      required: true,
      hint: "https://…",
    }),
  );
  assertOk(html.includes('<label for="new-url">URL</label>'), html);
  assertOk(html.includes('<input id="new-url" name="url" type="url"'), html);
  assertOk(html.includes('aria-describedby="new-url-hint"') && html.includes("required"), html);
  assertOk(html.endsWith('<small id="new-url-hint" class="muted">https://…</small></div>'), html);
});

Deno.test("Field: options make a select with the value's option selected", () => {
  const html = String(Field({
    name: "order",
    label: "Order",
    value: "asc",
    options: [["desc", "Newest first"], ["asc", "Oldest first"]],
  }));
  assertOk(html.includes('<select id="order" name="order">'), html);
  assertOk(html.includes('<option value="desc">Newest first</option>'), html);
  assertOk(html.includes('<option value="asc" selected="">Oldest first</option>'), html);
});

Deno.test("Field: rows make a textarea", () => {
  const html = String(Field({ name: "keys", label: "Keys", rows: 3, hint: "one per line" }));
  assertOk(
    html.includes('<textarea id="keys" name="keys" rows="3" aria-describedby="keys-hint">'),
    html,
  );
  assertOk(!html.includes("<input"), html);
});
