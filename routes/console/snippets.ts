/** Ready-to-paste text for the pages: SDK snippets and the curl of the equivalent admin call. */

/**
 * Client snippets for the OpenAI, Anthropic and Google SDKs against `baseUrl`; with `model`,
 * each goes on to a first request to it.
 */
export function sdkSnippets(
  baseUrl: string,
  model?: string,
): Array<{ sdk: string; code: string }> {
  const call = (line: string) => model ? `\n${line}` : "";
  const name = JSON.stringify(model ?? "");
  return [
    {
      sdk: "OpenAI (openai)",
      code: `import OpenAI from "openai";\n` +
        `const client = new OpenAI({ baseURL: "${baseUrl}/v1", apiKey: process.env.GATEWAY_KEY });` +
        call(
          `const answer = await client.chat.completions.create({\n  model: ${name},\n` +
            `  messages: [{ role: "user", content: "Hello" }],\n});`,
        ),
    },
    {
      sdk: "Anthropic (@anthropic-ai/sdk)",
      code: `import Anthropic from "@anthropic-ai/sdk";\n` +
        `const client = new Anthropic({ baseURL: "${baseUrl}", apiKey: process.env.GATEWAY_KEY });` +
        call(
          `const answer = await client.messages.create({\n  model: ${name},\n  max_tokens: 256,\n` +
            `  messages: [{ role: "user", content: "Hello" }],\n});`,
        ),
    },
    {
      sdk: "Google (@google/genai)",
      code: `import { GoogleGenAI } from "@google/genai";\n` +
        `const client = new GoogleGenAI({\n  apiKey: process.env.GATEWAY_KEY,\n` +
        `  httpOptions: { baseUrl: "${baseUrl}" },\n});` +
        call(
          `const answer = await client.models.generateContent({ model: ${name}, contents: "Hello" });`,
        ),
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
