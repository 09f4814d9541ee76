import { assertEquals } from "../../helpers/assert.ts";
import {
  readVertexModels,
  vertexListedPublishers,
} from "../../../core/providers/vertex_model_list.ts";
import { vertexOrigin } from "../../../core/providers/vertex_endpoint.ts";

const page = (names: unknown[], nextPageToken?: string) =>
  JSON.stringify({
    publisherModels: names.map((name) => ({ name, versionId: "001" })),
    ...(nextPageToken === undefined ? {} : { nextPageToken }),
  });

Deno.test("vertex model list: the channel's publisher, else Google's then Anthropic's", () => {
  assertEquals(vertexListedPublishers({}), ["google", "anthropic"]);
  assertEquals(vertexListedPublishers({ vertex_publisher: "anthropic" }), ["anthropic"]);
  assertEquals(vertexListedPublishers({ vertex_publisher: "google" }), ["google"]);
});

Deno.test("vertex model list: ids without publishers/x/models/, Gemini's, text embeddings and Claude's kept", () => {
  const google = page([
    "publishers/google/models/gemini-2.0-flash-001",
    "publishers/google/models/imagen-4.0-generate-001",
    "publishers/google/models/text-embedding-005",
    "publishers/anthropic/models/claude-sonnet-4-5",
    "publishers/google/models/",
    { not: "a name" },
    "publishers/google/models/gemini-2.5-pro",
    "publishers/google/models/text-multilingual-embedding-002",
    "publishers/google/models/chirp-2",
  ], "tok-2");
  assertEquals(readVertexModels(google, { channel: {} }), {
    models: [
      { id: "gemini-2.0-flash-001" },
      { id: "text-embedding-005" },
      { id: "gemini-2.5-pro" },
      { id: "text-multilingual-embedding-002" },
    ],
    next: "google:tok-2",
  });
  // Google's last page goes on to Anthropic's first, which ends the list.
  assertEquals(readVertexModels(page([]), { channel: {}, next: "google:tok-2" }), {
    models: [],
    next: "anthropic:",
  });
  const anthropic = page([
    "publishers/anthropic/models/claude-sonnet-4-5",
    "publishers/anthropic/models/other-model",
  ]);
  assertEquals(readVertexModels(anthropic, { channel: {}, next: "anthropic:" }), {
    models: [{ id: "claude-sonnet-4-5" }],
    next: undefined,
  });
  // A channel whose every model is Anthropic's takes all of Anthropic's, and no other list.
  assertEquals(readVertexModels(anthropic, { channel: { vertex_publisher: "anthropic" } }), {
    models: [{ id: "claude-sonnet-4-5" }, { id: "other-model" }],
    next: undefined,
  });
  assertEquals(readVertexModels(page([]), { channel: { vertex_publisher: "google" } }), {
    models: [],
    next: undefined,
  });
  assertEquals(readVertexModels("not json", { channel: {} }), { models: [], next: "anthropic:" });
});

Deno.test("vertex model list: the origin follows serving's rule", () => {
  const google = "https://aiplatform.googleapis.com";
  assertEquals(
    vertexOrigin({ base_url: google, location: "us-east5" }),
    "https://us-east5-aiplatform.googleapis.com",
  );
  assertEquals(vertexOrigin({ base_url: google, location: "global" }), google);
  assertEquals(
    vertexOrigin({ base_url: "http://127.0.0.1:9", location: "us-east5" }),
    "http://127.0.0.1:9",
  );
});
