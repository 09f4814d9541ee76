/** Hostile clients cannot grow /metrics or erase the request log's records of paid requests. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

/** Sends `count` requests, `parallel` at a time. */
async function burst(count: number, parallel: number, send: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await send(next++);
  }));
}

function randomPath(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return "/" +
    Array.from(bytes, (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("");
}

Deno.test(
  "metrics: 2,000 requests to random paths share one 'unmatched' label; /metrics stays small",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      await burst(2_000, 16, async () => {
        const response = await fetch(`${gw.url}${randomPath(40)}/${randomPath(20)}`);
        await response.body?.cancel();
      });
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      assertOk(text.length < 50_000, `/metrics is ${text.length} bytes`);
      const series = text.split("\n").filter((line) => line.startsWith("gateway_requests_total"));
      assertEquals(series.length, 1, series.join("\n"));
      assertOk(series[0].includes('route="unmatched"'), series[0]);
      assertOk(series[0].endsWith(" 2000"), series[0]);
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "metrics: route labels are the route templates, not the ids in the path",
  serverTest,
  async () => {
    const s = await setupChat();
    try {
      for (const id of ["task_a", "task_b", "task_c"]) {
        const response = await fetch(`${s.gw.url}/v1/video/generations/${id}`, {
          headers: { authorization: `Bearer ${s.key}` },
        });
        await response.body?.cancel();
      }
      const text = await (await fetch(`${s.gw.url}/metrics`)).text();
      const series = text.split("\n").filter((line) =>
        line.startsWith("gateway_requests_total") && line.includes("video")
      );
      assertEquals(series.length, 1, series.join("\n"));
      assertOk(series[0].includes('route="/v1/video/generations/:task_id"'), series[0]);
    } finally {
      await s.close();
    }
  },
);

Deno.test("metrics: GATEWAY_METRICS_TOKEN protects /metrics", serverTest, async () => {
  const gw = await startTestGateway({ GATEWAY_METRICS_TOKEN: "metrics-secret" });
  try {
    const refused = await fetch(`${gw.url}/metrics`);
    assertEquals(refused.status, 401);
    assertEquals((await refused.json()).error.code, "invalid_metrics_token");
    const wrong = await fetch(`${gw.url}/metrics`, { headers: { authorization: "Bearer nope" } });
    assertEquals(wrong.status, 401);
    await wrong.body?.cancel();
    const allowed = await fetch(`${gw.url}/metrics`, {
      headers: { authorization: "Bearer metrics-secret" },
    });
    assertEquals(allowed.status, 200);
    await allowed.body?.cancel();
  } finally {
    await gw.close();
  }
});

Deno.test(
  "request log: a 70 KB model name is cut and marked; the 50 paid requests beside it keep their records",
  serverTest,
  async () => {
    const s = await setupChat();
    try {
      const huge = "m".repeat(70_000);
      const statuses = await Promise.all([
        ...Array.from({ length: 50 }, () => postJson(s.gw, "/v1/chat/completions", s.key, ask)),
        postJson(s.gw, "/v1/chat/completions", s.key, { ...ask, model: huge }),
      ].map(async (pending) => {
        const response = await pending;
        await response.body?.cancel();
        return response.status;
      }));
      assertEquals(statuses.filter((status) => status === 200).length, 50);
      await s.gw.settle();
      const records = (await s.gw.admin("GET", "/admin/requests?limit=1000")).body.data;
      assertEquals(
        records.filter((record: { status: number }) => record.status === 200).length,
        50,
      );
      const long = records.find((record: { status: number }) => record.status === 404);
      assertEquals(long.truncated, true);
      assertOk(long.model.length < 300);
    } finally {
      await s.close();
    }
  },
);

Deno.test(
  "request log: a flood of 2,000 unauthenticated 404s with 2 KB paths cannot crowd out paid records",
  serverTest,
  async () => {
    const s = await setupChat();
    try {
      let paid = 0;
      await burst(2_040, 16, async (i) => {
        if (i % 51 === 0) {
          paid++;
          const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
          assertEquals(response.status, 200);
          await response.body?.cancel();
          return;
        }
        const response = await fetch(`${s.gw.url}${randomPath(2_000)}`);
        await response.body?.cancel();
      });
      await s.gw.settle();
      const records = [];
      let cursor = "";
      do {
        const page = await s.gw.admin("GET", `/admin/requests?limit=1000&cursor=${cursor}`);
        records.push(...page.body.data);
        cursor = page.body.cursor ?? "";
      } while (cursor);
      assertEquals(records.filter((record) => record.status === 200).length, paid);
      const metrics = await (await fetch(`${s.gw.url}/metrics`)).text();
      assertOk(metrics.includes("gateway_request_log_dropped_total"), "drops are counted");
    } finally {
      await s.close();
    }
  },
);
