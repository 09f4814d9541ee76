/**
 * Checks answers against the vendors' published definitions (tests/fixtures/contracts/: OpenAI's
 * OpenAPI document, JSON Schemas of the @anthropic-ai/sdk types, Google's generativelanguage
 * protos), with ajv. Required fields and types are strict; other properties are allowed unless the
 * definition forbids them (Google's protos do: a ProtoJSON parser rejects unknown fields).
 *
 * `new Contracts(gaps)` skips only the checks the known gaps name (tests/e2e/contracts/
 * known_gaps.ts), each by relaxing the schema where the gap is or by a named check the test asks
 * about with `skips(check)`.
 */

import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import formatsModule from "ajv-formats";
import { assertOk } from "./assert.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export type Vendor = "openai" | "anthropic" | "gemini";

/** Where a value was captured, when a gap applies to one place only. */
export type Place = "whole" | "stream" | "stream-error";

/** A known non-conformance, fixed on another branch: its check is skipped until the merge. */
export interface KnownGap {
  /** The item of the issue (or the finding) this gap is. */
  item: string;
  vendor?: Vendor;
  /** Only where values are captured here; everywhere when absent. */
  place?: Place;
  /** Relaxes the vendor's schema document (`$defs`, or `definitions` for Anthropic's) in place. */
  relax?: (defs: Record<string, Json>) => void;
  /** A check of the test code (not of a schema) that `skips(check)` answers true for. */
  check?: string;
}

/** Removes `fields` from the `required` list of `defs[name]`. */
export function dropRequired(defs: Record<string, Json>, name: string, fields: string[]) {
  const schema = defs[name];
  assertOk(schema, `a schema ${name}`);
  schema.required = (schema.required ?? []).filter((field: string) => !fields.includes(field));
}

/**
 * GATEWAY_CONTRACTS_REPORT=1 prints every schema violation and goes on, to see all of them at
 * once (the tests then pass whatever they find).
 */
const REPORT_ONLY = Deno.env.get("GATEWAY_CONTRACTS_REPORT") === "1";

const FIXTURES = new URL("../fixtures/contracts/", import.meta.url);

function readDocument(vendor: Vendor): Json {
  return JSON.parse(Deno.readTextFileSync(new URL(`${vendor}/schemas.json`, FIXTURES)));
}

const DEFS_KEY: Record<Vendor, string> = {
  openai: "$defs",
  anthropic: "definitions",
  gemini: "$defs",
};

/**
 * Fields the @anthropic-ai/sdk types declare on every answer (Stainless writes each response field
 * as present, null when unused) that the API leaves out when their feature is not used: a
 * container (code execution), cache diagnostics, refusal details, server tools, citations,
 * tool-call callers, data residency, fast mode, thinking-token details. Absent here reads as null,
 * as the SDK reads it. Every other field of the types is required.
 */
const ANTHROPIC_ABSENT_WHEN_UNUSED: Record<string, string[]> = {
  Message: ["container", "diagnostics", "stop_details"],
  Usage: ["inference_geo", "output_tokens_details", "server_tool_use", "speed"],
  // The streaming docs' message_delta carries output_tokens alone.
  MessageDeltaUsage: [
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "input_tokens",
    "server_tool_use",
    "output_tokens_details",
  ],
  "RawMessageDeltaEvent.Delta": ["container", "stop_details"],
  TextBlock: ["citations"],
  ToolUseBlock: ["caller"],
};

/**
 * Where OpenAI's document disagrees with OpenAI's own answers: a Response in a stream's
 * `response.created` and `response.in_progress` carries `"usage": null` (the API reference's
 * streaming example), which the document's `usage` (a ResponseUsage) does not allow.
 */
function openaiErrata(defs: Record<string, Json>) {
  const own = defs.Response.allOf.find((part: Json) => part.properties?.usage);
  own.properties.usage = { anyOf: [own.properties.usage, { type: "null" }] };
}

/**
 * Where the @anthropic-ai/sdk types lag the API: Anthropic's errors page lists 413
 * `request_too_large`, which the SDK's ErrorObject union lacks.
 */
function anthropicErrata(defs: Record<string, Json>) {
  defs.ErrorObject.anyOf.push({
    type: "object",
    properties: { message: { type: "string" }, type: { const: "request_too_large" } },
    required: ["message", "type"],
  });
}

/** The name a schema has in its vendor's document (Gemini's by their proto's full name). */
function definitionName(vendor: Vendor, defs: Record<string, Json>, name: string): string {
  if (vendor !== "gemini" || name in defs) return name;
  for (const prefix of ["google.ai.generativelanguage.v1beta.", "google.rpc."]) {
    if (`${prefix}${name}` in defs) return `${prefix}${name}`;
  }
  return name;
}

// ajv-formats is CommonJS: its default export is the module, whose `default` is the plugin.
const addFormats = (formatsModule as unknown as { default: (ajv: Ajv) => void }).default ??
  (formatsModule as unknown as (ajv: Ajv) => void);

function newAjv(vendor: Vendor): Ajv {
  const options = { strict: false, allErrors: true };
  const ajv = vendor === "anthropic" ? new Ajv(options) : new Ajv2020(options) as unknown as Ajv;
  addFormats(ajv);
  // OpenAI's own formats: `unixtime` is whole seconds since the epoch (not milliseconds).
  ajv.addFormat("unixtime", {
    type: "number",
    validate: (value: number) => Number.isInteger(value) && value >= 0 && value < 1e11,
  });
  ajv.addFormat("float", { type: "number", validate: () => true });
  return ajv;
}

export class Contracts {
  readonly #gaps: KnownGap[];
  readonly #validators = new Map<string, (name: string) => Json>();

  constructor(gaps: KnownGap[] = []) {
    this.#gaps = gaps;
  }

  /** Whether a known gap skips the test code's check named `check`. */
  skips(check: string): boolean {
    return this.#gaps.some((gap) => gap.check === check);
  }

  #validator(vendor: Vendor, place: Place) {
    const key = `${vendor}:${place}`;
    let lookup = this.#validators.get(key);
    if (!lookup) {
      const document = readDocument(vendor);
      const defs = document[DEFS_KEY[vendor]];
      if (vendor === "openai") openaiErrata(defs);
      if (vendor === "anthropic") {
        anthropicErrata(defs);
        for (const [name, fields] of Object.entries(ANTHROPIC_ABSENT_WHEN_UNUSED)) {
          if (name in defs) dropRequired(defs, name, fields);
        }
      }
      for (const gap of this.#gaps) {
        if ((gap.vendor ?? vendor) !== vendor || (gap.place ?? place) !== place) continue;
        gap.relax?.(defs);
      }
      const ajv = newAjv(vendor);
      ajv.addSchema(document, key);
      const compiled = new Map<string, Json>();
      lookup = (name: string) => {
        const defName = definitionName(vendor, defs, name);
        assertOk(defName in defs, `${vendor} defines ${name}`);
        if (!compiled.has(defName)) {
          const pointer = `/${DEFS_KEY[vendor]}/${encodeURIComponent(defName)}`;
          compiled.set(defName, ajv.getSchema(`${key}#${pointer}`));
        }
        return compiled.get(defName);
      };
      this.#validators.set(key, lookup);
    }
    return lookup;
  }

  /**
   * The test code's check `check` (a name KNOWN_GAPS may list to skip it): fails unless `actual`
   * equals `expected`.
   */
  expect(check: string, actual: unknown, expected: unknown, label: string) {
    if (this.skips(check) || JSON.stringify(actual) === JSON.stringify(expected)) return;
    const message = `${label}: ${check}: got ${JSON.stringify(actual)}, expected ${
      JSON.stringify(expected)
    }`;
    if (REPORT_ONLY) return console.log(message);
    throw new Error(message);
  }

  /** What in `value` breaks `vendor`'s schema `name` (empty when it conforms). */
  violations(vendor: Vendor, name: string, value: unknown, place: Place = "whole"): string[] {
    const validate = this.#validator(vendor, place)(name);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error: Json) =>
      `${error.instancePath || "/"} ${error.message} ${
        JSON.stringify(error.params)
      } (${error.schemaPath})`
    );
  }

  /** Fails, naming every violation and the value, unless `value` conforms to `name`. */
  assert(vendor: Vendor, name: string, value: unknown, label: string, place: Place = "whole") {
    const found = this.violations(vendor, name, value, place);
    if (found.length === 0) return;
    if (REPORT_ONLY) {
      console.log(`${label}: ${vendor} ${name}:\n  ${found.join("\n  ")}`);
      console.log(`  value: ${JSON.stringify(value).slice(0, 3000)}`);
      return;
    }
    const shown = found.length > 25
      ? [...found.slice(0, 25), `… ${found.length - 25} more`]
      : found;
    throw new Error(
      `${label}: not a conforming ${vendor} ${name}:\n  ${shown.join("\n  ")}\nvalue: ${
        JSON.stringify(value).slice(0, 2000)
      }`,
    );
  }
}

/** The HTTP status each google.rpc.Code maps to (from code.proto's "HTTP Mapping" comments). */
export function geminiHttpStatus(): Record<string, number> {
  return readDocument("gemini")["x-http-status"];
}

/** The schema of each Responses stream event type, read from OpenAI's ResponseStreamEvent. */
export function openaiResponseEventSchemas(): Record<string, string> {
  const defs = readDocument("openai").$defs;
  const names: Record<string, string> = {};
  for (const variant of defs.ResponseStreamEvent.anyOf) {
    const name = variant.$ref.replace("#/$defs/", "");
    const type = defs[name].properties?.type;
    for (const value of type?.enum ?? [type?.const]) if (value) names[value] = name;
  }
  return names;
}

/** The schema of each Anthropic stream event type (the SDK's RawMessageStreamEvent, and error). */
export const ANTHROPIC_EVENT_SCHEMAS: Record<string, string> = {
  message_start: "RawMessageStartEvent",
  message_delta: "RawMessageDeltaEvent",
  message_stop: "RawMessageStopEvent",
  content_block_start: "RawContentBlockStartEvent",
  content_block_delta: "RawContentBlockDeltaEvent",
  content_block_stop: "RawContentBlockStopEvent",
  error: "ErrorEvent",
};
