/** What the account API's route files share: the declaration and the body reader. */

import type { ApiRoute } from "../openapi/declare_route.ts";
import { readJsonBody } from "../validation.ts";

/** An account API route: tagged `account`, a personal access token, OpenAI-style errors. */
export const accountRoute = <const Path extends string>(
  route: Omit<ApiRoute, "security" | "errors" | "tag" | "path"> & { path: Path },
): ApiRoute<Path> => ({ ...route, tag: "account", security: "access_token", errors: "openai" });

export const ACCOUNT_BODY_LIMIT = 64 * 1024;

/** The JSON object body of an account API request (64 KB at most). */
export const accountBody = (request: Request) => readJsonBody(request, ACCOUNT_BODY_LIMIT);
