import { assertEquals } from "../../helpers/assert.ts";
import { GatewayError } from "../../../core/errors.ts";
import {
  channelCreateOf,
  channelKeysPatchOf,
  channelPatchOf,
  keysOf,
  modelMapOf,
  modelMapText,
} from "../../../routes/console/channel_form.ts";

Deno.test("channel form: fields become the PATCH body; bad numbers are left for the schema", () => {
  assertEquals(
    channelPatchOf({ name: " a ", priority: "-2", weight: "x", groups: "a, b,,", models: "m\nn" }),
    { name: "a", priority: -2, weight: "x", groups: ["a", "b"], models: ["m", "n"] },
  );
  assertEquals(channelPatchOf({}), {});
});

Deno.test("channel keys form: add one, replace all, remove by fingerprint", () => {
  assertEquals(channelKeysPatchOf({ action: "add", key: " k1 " }), { add_keys: ["k1"] });
  assertEquals(channelKeysPatchOf({ action: "add", key: "" }), { add_keys: [] });
  assertEquals(channelKeysPatchOf({ action: "replace", keys: "a\nb" }), { keys: ["a", "b"] });
  assertEquals(channelKeysPatchOf({ action: "remove", fingerprint: "3f2a9c1e" }), {
    remove_keys: ["3f2a9c1e"],
  });
});

Deno.test("channel form: the create body; blanks take the API's defaults; a clone's keys go first", () => {
  assertEquals(
    channelCreateOf(
      {
        type: "anthropic",
        name: " n ",
        base_url: " http://u ",
        keys: "k2\nk3",
        models: "a, b",
        model_map: "a = up-a\n\n b=up-b ",
        groups: "",
        priority: "",
        weight: "2",
        stream_idle_ms: "",
        anthropic_version: "2023-06-01",
        anthropic_betas_allow: "x-*, y",
        anthropic_betas_deny: "",
        video_resolution: "",
        create_models: "on",
        enabled: "on",
      },
      ["k1"],
    ),
    {
      type: "anthropic",
      name: "n",
      base_url: "http://u",
      weight: 2,
      models: ["a", "b"],
      model_map: { a: "up-a", b: "up-b" },
      anthropic_version: "2023-06-01",
      anthropic_betas: { allow: ["x-*", "y"] },
      create_models: true,
      keys: ["k1", "k2", "k3"],
      enabled: true,
    },
  );
  assertEquals(channelCreateOf({ type: "openai" }).enabled, false, "an unticked box is off");
});

Deno.test("channel form: edit keys are added, or replace all; none typed leaves them", () => {
  assertEquals(channelPatchOf({ keys: "k1\nk2" }), { add_keys: ["k1", "k2"] });
  assertEquals(channelPatchOf({ keys: "k1", keys_mode: "replace" }), { keys: ["k1"] });
  assertEquals(channelPatchOf({ keys: " ", keys_mode: "replace" }), {});
  assertEquals(channelPatchOf({ groups: "" }), { groups: [] }, "an emptied list is refused");
  assertEquals(channelPatchOf({ max_retries: "", video_resolution: "" }), {}, "blank: unchanged");
});

Deno.test("channel form: a model map line without '=' is refused with its number", () => {
  assertEquals(modelMapOf(""), {});
  let refusal: unknown;
  try {
    modelMapOf("a = b\nno equals sign");
  } catch (error) {
    refusal = error;
  }
  assertEquals(refusal instanceof GatewayError && refusal.status, 400);
  assertEquals((refusal as Error).message.startsWith("model_map line 2 ('no equals sign')"), true);
  assertEquals(modelMapText({ a: "b", c: "d" }), "a = b\nc = d");
  assertEquals(modelMapOf(modelMapText({ a: "b", c: "d" })), { a: "b", c: "d" });
});

Deno.test("channel form: breaker settings go whole when any is given", () => {
  assertEquals(channelPatchOf({ breaker_enabled: "", breaker_window: "" }), {});
  assertEquals(
    channelPatchOf({
      breaker_enabled: "off",
      breaker_min_failures: "4",
      breaker_failure_rate: "0.5",
      breaker_window: "20",
      breaker_cooldowns_ms: "1000, 5000",
    }),
    {
      breaker: {
        enabled: false,
        min_failures: 4,
        failure_rate: 0.5,
        window: 20,
        cooldowns_ms: [1000, 5000],
      },
    },
  );
  assertEquals(channelPatchOf({ breaker_failure_rate: "half" }), {
    breaker: { failure_rate: "half" },
  });
});

Deno.test("a key box holding JSON objects gives each object whole, commas and lines kept", () => {
  const one =
    '{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nA,B\\n",\n  "client_email": "a@p.iam.gserviceaccount.com"\n}';
  const two = '{"client_email": "b}@p", "nested": {"x": 1}}';
  assertEquals(keysOf(`  ${one}\n`), [one]);
  assertEquals(keysOf(`${one}\n\n${two}`), [one, two]);
  assertEquals(
    keysOf('{"unclosed": 1'),
    ['{"unclosed": 1'],
    "sent as typed, for the API to refuse",
  );
  assertEquals(keysOf("sk-one\nsk-two, sk-three"), ["sk-one", "sk-two", "sk-three"]);
});
