/** The HTTP app: every surface mounted on one Hono instance. */

import { Hono } from "hono";
import { GatewayError } from "./core/errors.ts";
import type { Gateway } from "./core/gateway.ts";
import { adminRoutes } from "./routes/admin/mod.ts";
import { chatCompletionsRoutes } from "./routes/chat_completions.ts";
import { messagesRoutes } from "./routes/messages.ts";
import { responsesRoutes } from "./routes/responses.ts";
import { type AppEnv, renderError, requestContext } from "./routes/middleware.ts";
import { generateContentRoutes } from "./routes/generate_content.ts";
import { imageRoutes } from "./routes/images.ts";
import { audioSpeechRoutes } from "./routes/audio_speech.ts";
import { embeddingsRoutes } from "./routes/embeddings.ts";
import { geminiEmbeddingRoutes } from "./routes/gemini_embeddings.ts";
import { mediaRoutes } from "./routes/media.ts";
import { videoRoutes } from "./routes/video.ts";
import { rerankRoutes } from "./routes/rerank.ts";
import { moderationRoutes } from "./routes/moderations.ts";
import { audioRoutes } from "./routes/audio.ts";
import { modelRoutes } from "./routes/models.ts";
import { operationRoutes } from "./routes/operations.ts";
import { meRoutes } from "./routes/me.ts";
import { accountApiRoutes } from "./routes/account_api/mod.ts";
import { openApiRoutes } from "./routes/openapi/mod.ts";
import { consoleRoutes } from "./routes/console/mod.ts";
import { fastPath } from "./routes/fast_path.ts";
import { chatFastRoute } from "./routes/chat_fast_path.ts";
import { embeddingsFastRoute } from "./routes/embeddings.ts";
import { textInterfaceRoutes } from "./routes/text_interface_routes.ts";
import { finalResponse } from "./routes/final_response.ts";
import { AuthThrottle, type AuthThrottleOptions } from "./core/keys/auth_throttle.ts";
import type { ProxyTrust } from "./core/util/client_address.ts";
import { CidrSet } from "./core/util/cidr.ts";

export interface AppOptions {
  /** The failed-authentication throttle's limits (defaults: 10 failures a minute per address). */
  authThrottle?: Partial<AuthThrottleOptions>;
  /** Proxies whose `x-forwarded-for` is believed; default: the gateway's options (settings). */
  proxyTrust?: ProxyTrust;
  /** Chat completions and embeddings served before Hono (routes/fast_path.ts); default true. */
  fastPath?: boolean;
}

function proxyTrustOf(gateway: Gateway): ProxyTrust {
  const { trustProxyHops, trustedProxies } = gateway.options;
  return {
    trustProxyHops,
    trustedProxies: trustedProxies.length ? new CidrSet(trustedProxies) : undefined,
  };
}

/** Builds the app for `gateway`. */
export function createApp(
  gateway: Gateway,
  adminTokenHash: string,
  isReady: () => boolean,
  options: AppOptions = {},
) {
  const app = new Hono<AppEnv>();
  const proxyTrust = options.proxyTrust ?? proxyTrustOf(gateway);
  app.use(
    "*",
    requestContext(gateway, { authThrottle: new AuthThrottle(options.authThrottle), proxyTrust }),
  );
  app.route("/", operationRoutes(gateway, isReady));
  app.route("/", openApiRoutes(() => app.routes));
  app.route("/", adminRoutes(gateway, adminTokenHash));
  app.route("/", meRoutes(gateway));
  app.route("/", accountApiRoutes(gateway));
  app.route("/", consoleRoutes(gateway, adminTokenHash));
  app.route("/", modelRoutes(gateway));
  app.route("/", chatCompletionsRoutes(gateway));
  app.route("/", responsesRoutes(gateway));
  app.route("/", messagesRoutes(gateway));
  app.route("/", imageRoutes(gateway));
  app.route("/", generateContentRoutes(gateway));
  app.route("/", embeddingsRoutes(gateway));
  app.route("/", geminiEmbeddingRoutes(gateway));
  app.route("/", textInterfaceRoutes(gateway));
  app.route("/", mediaRoutes(gateway));
  app.route("/", videoRoutes(gateway));
  app.route("/", rerankRoutes(gateway));
  app.route("/", moderationRoutes(gateway));
  app.route("/", audioRoutes(gateway));
  app.route("/", audioSpeechRoutes(gateway));
  app.notFound((c) =>
    renderError(gateway, {
      error: new GatewayError(
        "not_found",
        404,
        `No route for ${c.req.method} ${new URL(c.req.url).pathname}`,
      ),
      c,
    })
  );
  app.onError((error, c) => renderError(gateway, { error, c }));
  const honoFetch = app.fetch;
  const fast = options.fastPath !== false
    ? fastPath(gateway, proxyTrust, [chatFastRoute, embeddingsFastRoute])
    : undefined;
  app.fetch = async (request, env, executionCtx) => {
    // The fast path sees each request first; what it does not take goes to Hono unchanged.
    const served = fast?.(request, env);
    const response = (served && await served) ?? await honoFetch(request, env, executionCtx);
    return finalResponse(response, request, env);
  };
  return app;
}
