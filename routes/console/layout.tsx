/** The page shell: head with the nonced stylesheet, skip link, navigation, theme switch, main. */

import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import type { ConsoleSession } from "../../core/console/session_store.ts";
import type { Theme } from "./console_env.ts";
import type { AccountRole } from "../../core/account_area/actor.ts";
import { CONSOLE_CSS } from "./styles.ts";
import { COPY_SCRIPT } from "./copy_script.ts";

export interface LayoutProps {
  title: string;
  nonce: string;
  theme: Theme;
  /** The request's path, to mark the current page and come back after a theme switch. */
  path: string;
  session?: ConsoleSession;
  /** A member's role in the account they view: only owners are offered Members. */
  accountRole?: AccountRole;
  /** Includes the copy-button script. */
  copyButtons?: boolean;
  children?: Child;
}

const OPERATOR_NAV: Array<[string, string]> = [
  ["Overview", "/console"],
  ["Accounts", "/console/accounts"],
  ["Groups", "/console/groups"],
  ["Codes", "/console/redemption-codes"],
  ["Keys", "/console/keys"],
  ["Channels", "/console/channels"],
  ["Requests", "/console/requests"],
  ["Tasks", "/console/tasks"],
  ["Models", "/console/models"],
  ["Webhooks", "/console/webhooks"],
  ["Audit", "/console/audit"],
  ["Money", "/console/money"],
];

const HOLDER_NAV: Array<[string, string]> = [
  ["My key", "/console/me"],
  ["Requests", "/console/requests"],
  ["Tasks", "/console/tasks"],
];

const MEMBER_NAV: Array<[string, string]> = [
  ["Dashboard", "/console/account"],
  ["Keys", "/console/account/keys"],
  ["Usage", "/console/account/usage"],
  ["Wallet", "/console/account/wallet"],
  ["Models", "/console/account/models"],
  ["Members", "/console/members"],
  ["Settings", "/console/settings"],
];

/**
 * The nav entries a session sees: the operator's, the key holder's or a member's (Members only
 * for an account's owners).
 */
export function navFor(
  session: ConsoleSession,
  accountRole?: AccountRole,
): Array<[string, string]> {
  const kind = session.role.kind;
  if (kind === "member") {
    return accountRole === "owner"
      ? MEMBER_NAV
      : MEMBER_NAV.filter(([, href]) => href !== "/console/members");
  }
  return kind === "operator" ? OPERATOR_NAV : HOLDER_NAV;
}

const SIGNED_IN_AS = {
  operator: "Signed in as operator",
  holder: "Signed in as key holder",
  member: "Signed in as member",
} as const;

/** Pages with pages under them in the nav of their own (the dashboard) match exactly. */
const EXACT_NAV = new Set(["/console", "/console/account"]);

function isCurrent(href: string, path: string): boolean {
  return EXACT_NAV.has(href) ? path === href : path === href || path.startsWith(`${href}/`);
}

/** The hidden CSRF field every state-changing form of a signed-in page carries. */
export function CsrfField({ session }: { session?: ConsoleSession }) {
  return session ? <input type="hidden" name="csrf" value={session.csrf} /> : null;
}

/** The operator's search box: one GET form, no script (routes/console/pages/search.tsx). */
function SearchBox() {
  return (
    <form method="get" action="/console/search" role="search" class="header-search">
      <input
        type="search"
        name="q"
        aria-label="Search keys, accounts, requests, tasks, channels"
        placeholder="Search: name or id"
      />
      <button type="submit" class="quiet">Search</button>
    </form>
  );
}

function ThemeSwitch({ theme, path, session }: Pick<LayoutProps, "theme" | "path" | "session">) {
  // Following the system, either theme may be the other one; once chosen, offer the other.
  const choices = theme === "system" ? ["light", "dark"] : [theme === "dark" ? "light" : "dark"];
  return (
    <form method="post" action="/console/theme" class="row">
      <CsrfField session={session} />
      <input type="hidden" name="next" value={path} />
      {choices.map((choice) => (
        <button type="submit" class="quiet" name="theme" value={choice}>
          {choice === "dark" ? "Dark theme" : "Light theme"}
        </button>
      ))}
    </form>
  );
}

export function Layout(props: LayoutProps) {
  const { session, path } = props;
  return (
    <html lang="en" data-theme={props.theme === "system" ? undefined : props.theme}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href="data:," />
        <title>{`${props.title} · Gateway console`}</title>
        <style nonce={props.nonce}>{raw(CONSOLE_CSS)}</style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <span class="brand">Gateway console</span>
          {session
            ? (
              <nav aria-label="Console">
                <ul>
                  {navFor(session, props.accountRole).map(([label, href]) => (
                    <li>
                      <a href={href} aria-current={isCurrent(href, path) ? "page" : undefined}>
                        {label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
            )
            : null}
          <div class="header-end">
            {session?.role.kind === "operator" ? <SearchBox /> : null}
            <ThemeSwitch theme={props.theme} path={path} session={session} />
            {session
              ? (
                <form method="post" action="/console/sign-out">
                  <CsrfField session={session} />
                  <button type="submit" class="quiet">Sign out</button>
                </form>
              )
              : null}
          </div>
        </header>
        <main id="main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
        <footer>
          {session ? SIGNED_IN_AS[session.role.kind] : "Not signed in"}
        </footer>
        {props.copyButtons ? <script nonce={props.nonce}>{raw(COPY_SCRIPT)}</script> : null}
      </body>
    </html>
  );
}

/** A `<details>` with the curl command of the equivalent API call. */
export function CopyAsCurl({ id, curl }: { id: string; curl: string }) {
  return (
    <details>
      <summary>Copy as curl</summary>
      <pre id={id}>{curl}</pre>
      <button type="button" class="quiet" data-copy={id} hidden>Copy</button>
    </details>
  );
}
