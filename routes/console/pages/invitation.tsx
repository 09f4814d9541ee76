/**
 * The page an invitation link opens. To a new email it offers a name and a password (the member
 * is made then, and the link is used up); to an email that has a member it asks that member to
 * sign in and then join, which adds the membership.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { Invitation } from "../../../core/members/invitations.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

const TITLE = "Invitation";

function NewMemberForm(
  { c, token, invitation, problem, name }: {
    c: ConsoleContext;
    token: string;
    invitation: Invitation;
    problem?: string;
    name?: string;
  },
) {
  return (
    <section class="card">
      <p>
        You are invited to account <code>{invitation.account_id}</code> as {invitation.role}{" "}
        with the email <strong>{invitation.email}</strong>. Choose your name and password.
      </p>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <form method="post" action="/console/invitation">
        <CsrfField session={c.get("session")} />
        <input type="hidden" name="token" value={token} />
        <Field name="name" label="Your name" autocomplete="name" value={name} required autofocus />
        <Field
          name="password"
          label="Password"
          type="password"
          autocomplete="new-password"
          hint="At least 10 characters"
          required
        />
        <p>
          <button type="submit">Accept and set password</button>
        </p>
      </form>
    </section>
  );
}

function JoinForm(
  { c, token, invitation, memberId }: {
    c: ConsoleContext;
    token: string;
    invitation: Invitation;
    memberId: string | null;
  },
) {
  const back = `/console/invitation?token=${token}`;
  return (
    <section class="card">
      <p>
        You are invited to account <code>{invitation.account_id}</code> as {invitation.role}.{" "}
        <strong>{invitation.email}</strong> has a member already.
      </p>
      {memberId
        ? (
          <form method="post" action="/console/invitation">
            <CsrfField session={c.get("session")} />
            <input type="hidden" name="token" value={token} />
            <input type="hidden" name="join" value="1" />
            <button type="submit">Join the account</button>
          </form>
        )
        : (
          <p>
            <a href={`/console/sign-in?next=${encodeURIComponent(back)}`}>
              Sign in as {invitation.email}
            </a>{" "}
            to join.
          </p>
        )}
    </section>
  );
}

const invalidLinkPage = (c: ConsoleContext) =>
  renderPage(
    c,
    <p class="error" role="alert">
      This invitation link is not valid: it was used already, has expired, or was mistyped. Ask for
      a new invitation.
    </p>,
    { title: TITLE, status: 404 },
  );

function signedInMember(c: ConsoleContext): string | null {
  const role = c.get("session")?.role;
  return role?.kind === "member" ? role.memberId : null;
}

export function invitationPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const members = gateway.members;

  async function page(
    c: ConsoleContext,
    token: string,
    problem?: { message: string; status: ContentfulStatusCode },
    name?: string,
  ) {
    const invitation = await members.peekInvitation(token);
    if (!invitation) return invalidLinkPage(c);
    const existing = await members.store.byEmail(invitation.email);
    if (existing) {
      const memberId = signedInMember(c) === existing.id ? existing.id : null;
      return renderPage(c, <JoinForm {...{ c, token, invitation, memberId }} />, {
        title: TITLE,
        status: problem?.status,
      });
    }
    return renderPage(
      c,
      <NewMemberForm {...{ c, token, invitation, name }} problem={problem?.message} />,
      { title: TITLE, status: problem?.status },
    );
  }

  app.get("/console/invitation", (c) => page(c, c.req.query("token") ?? ""));
  app.post("/console/invitation", async (c) => {
    const form = await readForm(c);
    const token = form.token ?? "";
    const memberId = signedInMember(c);
    try {
      if (form.join === "1" && memberId) {
        const invitation = await members.acceptAsMember(token, memberId);
        await gateway.consoleSessions.setRole(c.get("session").id, {
          kind: "member",
          memberId,
          accountId: invitation.account_id,
        });
        return c.redirect("/console/account", 303);
      }
      await members.acceptAsNewMember(token, { name: form.name, password: form.password });
    } catch (error) {
      const problem = formProblemOf(error);
      if (problem.status === 404) return invalidLinkPage(c);
      return await page(c, token, problem, form.name);
    }
    return renderPage(
      c,
      <section class="card">
        <p class="notice" role="status">Your password is set. Sign in with your email.</p>
        <p>
          <a href="/console/sign-in">Sign in</a>
        </p>
      </section>,
      { title: TITLE },
    );
  });
  return app;
}
