/**
 * POST /v1/chat/completions without the framework: the request is authenticated, its body read
 * and checked (a quick check of the fields the gateway reads; zod only when that says no, for
 * its 400), and served by the text service as the Hono route would, with the same headers,
 * errors and log record (and the key's IP allowlist checked as `requireKey` checks it). Anything it does not take goes to the Hono app untouched: another
 * path or method, a query string, no credential, or a credential that does not authenticate
 * (the app answers those, counting failures for the auth throttle). Once it has a key it answers
 * every outcome itself; conversion to other channel types happens in the text service as usual.
 * tests/routes/chat_fast_path_test.ts compares its answers with the app's.
 */

import type { Gateway } from "../core/gateway.ts";
import { openAIChatInterface } from "../core/formats/openai_chat/interface.ts";
import type { KeyRecord } from "../core/keys/key_schema.ts";
import { chatRequestSchema } from "../core/formats/openai_chat/request_schema.ts";
import { isPlainChatRequest } from "../core/formats/openai_chat/plain_request.ts";
import { chatInbound } from "../core/text/inbound.ts";
import { serveText } from "../core/text/serve_text.ts";
import { readClientHints } from "../core/providers/client_hints.ts";
import { limitBodyIdle } from "./body_idle.ts";
import { type AppEnv, failedRequest, newRequestContext, requestAddress } from "./middleware.ts";
import type { ProxyTrust } from "../core/util/client_address.ts";
import { checkIpAllowlist } from "../core/keys/ip_allowlist.ts";
import { textResponse } from "./text_answer.ts";
import { readJsonBody, validate } from "./validation.ts";

const ROUTE = "/v1/chat/completions";

/** Serves `request` when it is a chat completion the fast path takes; else null. */
export type FastPath = (
  request: Request,
  env: AppEnv["Bindings"],
) => Promise<Response | null> | null;

export function chatFastPath(gateway: Gateway, proxyTrust: ProxyTrust): FastPath {
  return function chatCompletionsFast(request, env) {
    if (request.method !== "POST" || !request.url.endsWith(ROUTE)) return null;
    const url = new URL(request.url);
    if (url.pathname !== ROUTE || url.search !== "") return null;
    const credential = openAIChatInterface.family.readCredential({ headers: request.headers, url });
    if (!credential) return null;
    const address = () => requestAddress(request, env, proxyTrust);
    return serveAuthenticated(gateway, { request, url, secret: credential.secret, address });
  };
}

async function serveAuthenticated(
  gateway: Gateway,
  { request, url, secret, address }: {
    request: Request;
    url: URL;
    secret: string;
    /** The client's address, read only for a key with an IP allowlist. */
    address: () => string;
  },
): Promise<Response | null> {
  const context = newRequestContext(gateway, openAIChatInterface.family.name, ROUTE);
  let key: KeyRecord;
  try {
    key = await gateway.keys.authenticate(secret);
  } catch {
    return null;
  }
  context.key = key;
  try {
    if (key.ip_allowlist) checkIpAllowlist(key, address());
    gateway.rateLimiter.take(key.id, key.rpm);
    limitBodyIdle(request, gateway.options.clientIdleMs);
    const body = await readJsonBody(request, gateway.options.maxBodyBytes);
    const chat = isPlainChatRequest(body) ? body : validate(chatRequestSchema, body);
    context.model = chat.model;
    const inbound = chatInbound(chat);
    inbound.strictFields = request.headers.get("x-gateway-strict-fields")?.toLowerCase() === "true";
    const answer = await serveText({
      gateway,
      context,
      key,
      signal: request.signal,
      publicUrl: gateway.options.publicUrl ?? url.origin,
      clientHints: readClientHints(request.headers, url),
    }, inbound);
    return textResponse(answer, { requestId: context.id });
  } catch (error) {
    return failedRequest(context, error);
  }
}
