/**
 * The table of text interfaces, one row per inbound format: routes, the credential reader, the
 * error renderer, the model list and the text service read each format's facts from here. A new
 * format is one folder with its `interface.ts` and one row below (or, at run time,
 * `registerTextInterface` before the app is built).
 */

import type { PresentedCredential } from "../keys/credentials.ts";
import { bearerCredential } from "../keys/credentials.ts";
import { mediaInterfaceName, mediaInterfaceNames } from "../telemetry/interface_name.ts";
import type { ClientFamily, CredentialSource, TextInterface } from "./text_interface.ts";
import { openAIChatInterface } from "./openai_chat/interface.ts";
import { openAIResponsesInterface } from "./openai_responses/interface.ts";
import { anthropicInterface } from "./anthropic/interface.ts";
import { geminiInterface } from "./gemini/interface.ts";

const TEXT_INTERFACES = new Map<string, TextInterface>(
  [
    openAIChatInterface,
    openAIResponsesInterface,
    anthropicInterface,
    geminiInterface,
  ].map((row) => [row.format, row]),
);

/** Adds a row (a format of a newer folder); returns what takes it out again. */
export function registerTextInterface(row: TextInterface): () => void {
  if (TEXT_INTERFACES.has(row.format)) throw new Error(`text interface ${row.format} exists`);
  TEXT_INTERFACES.set(row.format, row);
  families = undefined;
  return () => {
    TEXT_INTERFACES.delete(row.format);
    families = undefined;
  };
}

/** Every row, in table order. */
export function textInterfaces(): TextInterface[] {
  return [...TEXT_INTERFACES.values()];
}

/** The row of `format`, or undefined for a format no client speaks (Bedrock's Converse). */
export function findTextInterface(format: string): TextInterface | undefined {
  return TEXT_INTERFACES.get(format);
}

/** The row of `format`. */
export function textInterfaceOf(format: string): TextInterface {
  const row = TEXT_INTERFACES.get(format);
  if (!row) throw new Error(`no text interface ${format}`);
  return row;
}

let families: ClientFamily[] | undefined;

/** Every client family, in the order of its first row; the first is the default. */
export function clientFamilies(): readonly ClientFamily[] {
  return families ??= [...new Set(textInterfaces().map((row) => row.family))];
}

/** The family called `name`, or the default (OpenAI's) for a name no row has. */
export function familyNamed(name: string): ClientFamily {
  const families = clientFamilies();
  return families.find((family) => family.name === name) ?? families[0];
}

/** The model list's paths, which every family's SDK calls: the credential decides the family. */
function isSharedPath(path: string): boolean {
  return path === "/v1/models" || path.startsWith("/v1/models/");
}

/**
 * The family a request belongs to: the one whose path it is; on the shared model list, the one
 * whose credential headers it carries (later rows first: Google's before Anthropic's, as
 * new-api does); else the default.
 */
export function interfaceOfRequest(path: string, request: CredentialSource): string {
  const families = clientFamilies();
  const owner = families.find((family) => family.ownsPath(path));
  if (owner) return owner.name;
  if (isSharedPath(path)) {
    const sender = families.toReversed().find((family) => family.sendsOwnCredential(request));
    if (sender) return sender.name;
  }
  return families[0].name;
}

/** Reads the credential for the family called `family` (a row's `family.name`). */
export function readCredential(
  family: string,
  request: CredentialSource,
): PresentedCredential | undefined {
  return familyNamed(family).readCredential(request);
}

/**
 * Reads a credential in any form a model interface takes (Bearer first, then each family's
 * own): for routes every SDK family's key may call, such as /v1/me.
 */
export function readAnyCredential(request: CredentialSource): PresentedCredential | undefined {
  const bearer = bearerCredential(request.headers);
  if (bearer) return bearer;
  for (const family of clientFamilies()) {
    const credential = family.readCredential(request);
    if (credential) return credential;
  }
  return undefined;
}

/** The name a request record gives `family`'s request that matched `route` (a template). */
export function interfaceName(family: string, route: string): string {
  for (const row of TEXT_INTERFACES.values()) {
    if (row.family.name !== family) continue;
    if (row.paths.some((path) => route === path || route.startsWith(`${path}/`))) return row.name;
  }
  return mediaInterfaceName(family, route) ?? family;
}

/** Every name a request record may carry: each family's text rows, its media routes, itself. */
export function interfaceNames(): string[] {
  const names = new Set<string>();
  for (const family of clientFamilies()) {
    for (const row of TEXT_INTERFACES.values()) if (row.family === family) names.add(row.name);
    for (const name of mediaInterfaceNames(family.name)) names.add(name);
    names.add(family.name);
  }
  return [...names];
}
