/** A console form's refusal: a 4xx GatewayError becomes the form's error line; others go on up. */

import { GatewayError } from "../../core/errors.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface FormProblem {
  message: string;
  status: ContentfulStatusCode;
  headers: Record<string, string>;
}

export function formProblemOf(error: unknown): FormProblem {
  if (!(error instanceof GatewayError) || error.status >= 500) throw error;
  return {
    message: error.message,
    status: error.status as ContentfulStatusCode,
    headers: error.headers,
  };
}

/** Copies a problem's headers (`retry-after`) onto the page answering it. */
export function withProblemHeaders(response: Response, problem: FormProblem): Response {
  for (const [name, value] of Object.entries(problem.headers)) response.headers.set(name, value);
  return response;
}
