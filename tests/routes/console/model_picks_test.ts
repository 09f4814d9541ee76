import { assertEquals } from "../../helpers/assert.ts";
import { modelPicks, postedPicks, savedModels } from "../../../routes/console/model_picks.ts";

Deno.test("model picks: the channel's models first (by their upstream name), then the rest of the list", () => {
  const channel = { models: ["chat", "gpt-4o", "gone"], model_map: { chat: "gpt-4o-mini" } };
  const picks = modelPicks(channel, [
    { id: "gpt-4o-mini", label: "GPT-4o mini" },
    { id: "gpt-4o" },
    { id: "o4-mini" },
  ]);
  assertEquals(picks, [
    { upstream: "gpt-4o-mini", public: "chat", label: "GPT-4o mini", served: true, listed: true },
    { upstream: "gpt-4o", public: "gpt-4o", label: undefined, served: true, listed: true },
    { upstream: "gone", public: "gone", label: undefined, served: true, listed: false },
    { upstream: "o4-mini", public: "o4-mini", label: undefined, served: false, listed: true },
  ]);
  assertEquals(savedModels(picks), {
    models: ["chat", "gpt-4o", "gone"],
    model_map: { chat: "gpt-4o-mini" },
  });
});

Deno.test("model picks: posted rows; ticked ones saved once each, a blank public name is the upstream's", () => {
  const picks = postedPicks(
    {
      "upstream.0": "a",
      "public.0": " pub-a ",
      "listed.0": "1",
      "upstream.1": "b",
      "public.1": "",
      "upstream.2": "c",
      "public.2": "pub-a",
      "upstream.4": "never read: rows stop at the first gap",
    },
    ["0", "1", "2", "9"],
  );
  assertEquals(picks.map((pick) => [pick.upstream, pick.public, pick.served, pick.listed]), [
    ["a", "pub-a", true, true],
    ["b", "b", true, false],
    ["c", "pub-a", true, false],
  ]);
  assertEquals(savedModels(picks), { models: ["pub-a", "b"], model_map: { "pub-a": "a" } });
});
