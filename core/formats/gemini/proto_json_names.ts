/**
 * Generate-content request bodies with every field under its JSON name (pure). The Gemini API
 * reads request JSON by the proto3 JSON rules: a field is accepted as its lowerCamelCase JSON name
 * (`systemInstruction`) and as its proto name (`system_instruction`); giving both is an error.
 * Values that are free-form JSON (google.protobuf.Struct / Value) and the keys of maps are the
 * client's own and are left as they came.
 */

import { invalidRequest } from "../../errors.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Struct / Value fields anywhere in a request: their contents are the client's JSON. */
const FREE_FORM = new Set([
  "partMetadata", // Part.part_metadata
  "parametersJsonSchema", // FunctionDeclaration.parameters_json_schema
  "responseJsonSchema", // FunctionDeclaration / GenerationConfig.response_json_schema
  "labels", // map<string, string> where a request carries it
]);

/** Struct fields of one message only: `<message field>.<field>`. */
const FREE_FORM_IN = new Set(["functionCall.args", "functionResponse.response"]);

/** Fields holding a Schema message (whose `properties` is a map of Schemas). */
const SCHEMA = new Set(["responseSchema", "parameters"]);
const SCHEMA_IN = new Set(["functionDeclarations.response"]);

/** Schema fields that hold free-form values. */
const SCHEMA_FREE_FORM = new Set(["example", "default"]);

/** A proto field name as its JSON name, as protoc derives it: `max_output_tokens` → `maxOutputTokens`. */
export function jsonNameOf(protoName: string): string {
  return protoName.replace(/_+(.?)/g, (_, next: string) => next.toUpperCase());
}

/**
 * `body` (a generate-content or countTokens request) with its field names as JSON names; a 400
 * naming the field when one field is given under both names.
 */
export function normaliseProtoJsonNames(body: Json): Json {
  return messageOf(body, "", "");
}

type Walk = (value: Json, path: string, field: string) => Json;

/** Each element of an array, or the value itself, through `walk`. */
function each(value: Json, path: string, field: string, walk: Walk): Json {
  if (Array.isArray(value)) {
    return value.map((item, index) => walk(item, `${path}[${index}]`, field));
  }
  return walk(value, path, field);
}

/** An object's keys as JSON names, refusing duplicates; `valueOf` reads each value. */
function renamed(
  object: Record<string, Json>,
  path: string,
  valueOf: (name: string, value: Json, path: string) => Json,
): Json {
  const out: Record<string, Json> = {};
  const given = new Map<string, string>();
  for (const [key, value] of Object.entries(object)) {
    const name = jsonNameOf(key);
    const at = path ? `${path}.${name}` : name;
    const earlier = given.get(name);
    if (earlier !== undefined) {
      throw invalidRequest(
        `Invalid JSON payload received. Field '${at}' is given twice, as '${earlier}' and ` +
          `'${key}'; send one of them`,
        at,
      );
    }
    given.set(name, key);
    out[name] = valueOf(name, value, at);
  }
  return out;
}

function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A message: `field` is the name of the field holding it (for fields whose type depends on it). */
function messageOf(value: Json, path: string, field: string): Json {
  if (!isObject(value)) return value;
  return renamed(value, path, (name, inner, at) => {
    if (FREE_FORM.has(name) || FREE_FORM_IN.has(`${field}.${name}`)) return inner;
    if (SCHEMA.has(name) || SCHEMA_IN.has(`${field}.${name}`)) {
      return each(inner, at, name, schemaOf);
    }
    return each(inner, at, name, messageOf);
  });
}

/** A Schema: its `properties` keys are the client's property names. */
function schemaOf(value: Json, path: string): Json {
  if (!isObject(value)) return value;
  return renamed(value, path, (name, inner, at) => {
    if (SCHEMA_FREE_FORM.has(name)) return inner;
    if (name === "properties" && isObject(inner)) {
      return Object.fromEntries(
        Object.entries(inner).map((
          [property, sub],
        ) => [property, schemaOf(sub, `${at}.${property}`)]),
      );
    }
    return each(inner, at, name, schemaOf);
  });
}
