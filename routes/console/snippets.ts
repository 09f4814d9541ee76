/** Ready-to-paste text for the pages: SDK snippets and the curl of the equivalent admin call. */

import { BASE_MULTIPLIER, type PriceTier } from "../../core/billing/price_tier.ts";

/** Client snippets for the OpenAI, Anthropic and Google SDKs against `baseUrl`. */
export function sdkSnippets(baseUrl: string): Array<{ sdk: string; code: string }> {
  return [
    {
      sdk: "OpenAI (openai)",
      code: `import OpenAI from "openai";\n` +
        `const client = new OpenAI({ baseURL: "${baseUrl}/v1", apiKey: process.env.GATEWAY_KEY });`,
    },
    {
      sdk: "Anthropic (@anthropic-ai/sdk)",
      code: `import Anthropic from "@anthropic-ai/sdk";\n` +
        `const client = new Anthropic({ baseURL: "${baseUrl}", apiKey: process.env.GATEWAY_KEY });`,
    },
    {
      sdk: "Google (@google/genai)",
      code: `import { GoogleGenAI } from "@google/genai";\n` +
        `const client = new GoogleGenAI({\n  apiKey: process.env.GATEWAY_KEY,\n` +
        `  httpOptions: { baseUrl: "${baseUrl}" },\n});`,
    },
  ];
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The curl command of an admin API call; the token stays in $GATEWAY_ADMIN_TOKEN. */
export function adminCurl(
  baseUrl: string,
  { method, path, body }: { method: string; path: string; body?: unknown },
): string {
  const lines = [
    `curl -X ${method} ${shellQuote(`${baseUrl}${path}`)}`,
    `  -H "Authorization: Bearer $GATEWAY_ADMIN_TOKEN"`,
  ];
  if (body !== undefined) {
    lines.push(`  -H 'content-type: application/json'`, `  -d ${shellQuote(JSON.stringify(body))}`);
  }
  return lines.join(" \\\n");
}

/** A unit count as currency: 1,000,000 units are 1.000000. */
/**
 * `units` × `tier`'s multiplier in currency, exactly: at least 6 decimals, more only when the
 * multiplier makes a fraction of a unit (3 units × 0.8 = 0.0000024).
 */
export function formatTieredUnits(units: number, tier?: PriceTier): string {
  const scaled = BigInt(units) * BigInt(tier?.multiplier ?? BASE_MULTIPLIER);
  const sign = scaled < 0n ? "-" : "";
  const abs = scaled < 0n ? -scaled : scaled;
  const scale = 10_000_000_000n; // 1,000,000 units × 10,000 ten-thousandths
  const fraction = String(abs % scale).padStart(10, "0").replace(/0{1,4}$/, "");
  return `${sign}${abs / scale}.${fraction}`;
}

export function formatUnits(units: number): string {
  const sign = units < 0 ? "-" : "";
  const abs = Math.abs(units);
  return `${sign}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, "0")}`;
}
