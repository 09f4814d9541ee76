import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { changeChannelKeys, sealKeys } from "../../../core/channels/channel_keys.ts";
import { GatewayError } from "../../../core/errors.ts";

const seal = (key: string) => Promise.resolve(`sealed:${key}`);

async function refusal(work: Promise<unknown>): Promise<GatewayError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("not refused");
}

Deno.test("changeChannelKeys() removes by fingerprint, then adds; a known key is kept once", async () => {
  const current = await sealKeys(["sk-a-1111", "sk-b-2222"], seal);
  const changed = await changeChannelKeys(current, {
    channelId: "ch_1",
    seal,
    remove_keys: [current.hints[0].fingerprint],
    add_keys: ["sk-c-3333", "sk-b-2222", "sk-c-3333"],
  });
  assertEquals(changed.sealed, ["sealed:sk-b-2222", "sealed:sk-c-3333"]);
  assertEquals(changed.hints.map((hint) => hint.last4), ["2222", "3333"]);
  assertEquals(await changeChannelKeys(current, { channelId: "ch_1", seal }), current);
});

Deno.test("changeChannelKeys() refuses an unknown fingerprint, the last key, and keys beside add_keys", async () => {
  const current = await sealKeys(["sk-a-1111"], seal);
  const unknown = await refusal(
    changeChannelKeys(current, { channelId: "ch_1", seal, remove_keys: ["0badf00d"] }),
  );
  assertEquals([unknown.status, unknown.code], [400, "unknown_key_fingerprint"]);
  assertOk(unknown.message.includes("'0badf00d'"), unknown.message);
  const last = await refusal(
    changeChannelKeys(current, {
      channelId: "ch_1",
      seal,
      remove_keys: [current.hints[0].fingerprint],
    }),
  );
  assertEquals([last.status, last.code], [400, "last_upstream_key"]);
  const both = await refusal(
    changeChannelKeys(current, { channelId: "ch_1", seal, keys: ["x"], add_keys: ["y"] }),
  );
  assertEquals(both.status, 400);
});
