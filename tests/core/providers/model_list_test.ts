import { assertEquals } from "../../helpers/assert.ts";
import {
  anthropicModelList,
  GEMINI_MODEL_LIST,
  OPENAI_MODEL_LIST,
} from "../../../core/providers/model_list.ts";
import { channelRecord } from "../../helpers/channel_record.ts";

Deno.test("model lists: answers read leniently, an entry without an id dropped, garbage empty", () => {
  assertEquals(
    OPENAI_MODEL_LIST.read(
      '{"object":"list","data":[{"id":"a","owned_by":"x"},{"object":"model"},{"id":""},{"id":"b"}]}',
    ),
    { models: [{ id: "a" }, { id: "b" }] },
  );
  assertEquals(OPENAI_MODEL_LIST.read("not json"), { models: [] });
  const anthropic = anthropicModelList("2023-06-01");
  assertEquals(
    anthropic.read(
      '{"data":[{"type":"model","id":"c","display_name":"C"}],"has_more":true,"last_id":"c"}',
    ),
    { models: [{ id: "c", label: "C" }], next: "c" },
  );
  assertEquals(anthropic.read('{"data":[],"has_more":false,"last_id":null}'), {
    models: [],
    next: undefined,
  });
  assertEquals(
    GEMINI_MODEL_LIST.read(JSON.stringify({
      models: [
        { name: "models/g", displayName: "G", supportedGenerationMethods: ["generateContent"] },
        { name: "models/e", supportedGenerationMethods: ["embedContent"] },
        { name: "models/h" },
      ],
      nextPageToken: "",
    })),
    { models: [{ id: "g", label: "G" }, { id: "h", label: undefined }], next: undefined },
  );
});

Deno.test("model lists: the requests, with each API's auth and paging", async () => {
  const channel = channelRecord("c", { base_url: "http://u" });
  const openai = await OPENAI_MODEL_LIST.request({ channel, apiKey: "k" });
  assertEquals([openai.url, openai.init.headers], [
    "http://u/models",
    { accept: "application/json", authorization: "Bearer k" },
  ]);
  const anthropic = await anthropicModelList("2023-06-01").request(
    { channel: { ...channel, anthropic_version: "2024-01-01" }, apiKey: "k" },
    "last",
  );
  assertEquals([anthropic.url, anthropic.init.headers], [
    "http://u/v1/models?limit=1000&after_id=last",
    { accept: "application/json", "x-api-key": "k", "anthropic-version": "2024-01-01" },
  ]);
  const gemini = await GEMINI_MODEL_LIST.request({ channel, apiKey: "k" }, "t2");
  assertEquals([gemini.url, gemini.init.method], [
    "http://u/v1beta/models?pageSize=1000&pageToken=t2",
    "GET",
  ]);
});
