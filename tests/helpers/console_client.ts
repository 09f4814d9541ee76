/**
 * Talks to the web console over plain HTTP as a browser would (no browser): signs in, keeps the
 * session cookie, reads the CSRF token off a page, and posts forms with the gateway's Origin.
 */

export interface ConsoleClient {
  /** The `console_session=…` cookie pair, or "" when signed out. */
  cookie: string;
  get(path: string): Promise<Response>;
  /** POSTs a form; `origin` null sends no Origin header; `csrf` defaults to the session's. */
  post(
    path: string,
    fields: Record<string, string>,
    options?: { origin?: string | null; csrf?: string | null },
  ): Promise<Response>;
  /** The CSRF token of the session, read from a page's hidden field. */
  csrf(): Promise<string>;
}

function cookiePair(response: Response, name: string): string | undefined {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    if (pair.startsWith(`${name}=`)) return pair;
  }
  return undefined;
}

/** A console client of the gateway at `url`, signed out until `signIn`. */
export function consoleClient(url: string): ConsoleClient & {
  signIn(token: string): Promise<Response>;
} {
  const client = {
    cookie: "",
    get(path: string) {
      return fetch(`${url}${path}`, {
        redirect: "manual",
        headers: client.cookie ? { cookie: client.cookie } : {},
      });
    },
    async csrf() {
      const page = await (await client.get("/console/sign-in?next=/console/me")).text();
      const html = page.includes('name="csrf"')
        ? page
        : await (await client.get("/console/tasks")).text();
      const match = html.match(/name="csrf" value="([^"]+)"/);
      if (!match) throw new Error("no CSRF token on the page: not signed in?");
      return match[1];
    },
    async post(
      path: string,
      fields: Record<string, string>,
      options: { origin?: string | null; csrf?: string | null } = {},
    ) {
      const body = new URLSearchParams(fields);
      const csrf = options.csrf === undefined
        ? (client.cookie ? await client.csrf() : null)
        : options.csrf;
      if (csrf !== null) body.set("csrf", csrf);
      const origin = options.origin === undefined ? url : options.origin;
      return fetch(`${url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(origin === null ? {} : { origin }),
          ...(client.cookie ? { cookie: client.cookie } : {}),
        },
        body,
      });
    },
    async signIn(token: string) {
      const response = await client.post("/console/sign-in", { token }, { csrf: null });
      const pair = cookiePair(response, "console_session");
      if (pair) client.cookie = pair;
      return response;
    },
  };
  return client;
}
