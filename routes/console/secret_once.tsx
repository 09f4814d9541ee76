/**
 * The page body that shows a new secret once (a key's after Create or Rotate, a webhook
 * endpoint's): taken from the session's sealed flash by the caller, with a Copy button; a second
 * view has no secret and says so.
 */

export function SecretOnce(
  { secret, heading, keep, again, back }: {
    secret: string | null;
    heading: string;
    /** What the gateway keeps instead of the secret, for the notice. */
    keep: string;
    /** How to get a new secret once this one is lost. */
    again: string;
    back: { href: string; label: string };
  },
) {
  const backLink = (
    <p>
      <a href={back.href}>{back.label}</a>
    </p>
  );
  if (!secret) {
    return (
      <section class="card">
        <p class="notice">
          The secret was shown once, when it was made, and cannot be shown again. {again}
        </p>
        {backLink}
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="secret-heading">
      <h2 id="secret-heading">{heading}</h2>
      <p class="notice">
        Copy it now: it is shown this once and never again (the gateway keeps {keep}).
      </p>
      <p>
        <code id="secret" class="secret">{secret}</code>{" "}
        <button type="button" data-copy="secret" hidden>Copy</button>
      </p>
      {backLink}
    </section>
  );
}
