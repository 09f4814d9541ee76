import { assertEquals } from "../../helpers/assert.ts";
import { MediaStore, newMediaId } from "../../../core/media/media_store.ts";
import { simulatedMp4 } from "../../upstream/video_bytes.ts";

Deno.test("media store: a write done again under a chosen id is one object, the last bytes", async () => {
  await using kv = await Deno.openKv(":memory:");
  const store = new MediaStore(kv, 60_000);
  const id = newMediaId();
  const first = await store.put(simulatedMp4(1), { owner: "k", id });
  const again = await store.put(simulatedMp4(2), { owner: "k", id });
  assertEquals([first.id, again.id], [id, id]);
  assertEquals(again.content_type, "video/mp4");
  assertEquals(await store.read((await store.get(id))!), simulatedMp4(2));
  assertEquals((await store.put(simulatedMp4(3), { owner: "k" })).id === id, false);
});
