/**
 * Member sign-in throttling, per email and per client address, built on the gateway's
 * AuthThrottle (core/keys/auth_throttle.ts). Unlike API keys, passwords can be guessed, so a
 * blocked email or address is refused BEFORE the password is checked: a right password does not
 * get through a block either. Every failed step (password, second factor) counts against both.
 */

import { AuthThrottle, type AuthThrottleOptions } from "../keys/auth_throttle.ts";
import { GatewayError } from "../errors.ts";

export const EMAIL_THROTTLE: Partial<AuthThrottleOptions> = {
  threshold: 5,
  windowMs: 15 * 60_000,
  baseBlockMs: 60_000,
};

export const ADDRESS_THROTTLE: Partial<AuthThrottleOptions> = {
  threshold: 20,
  windowMs: 15 * 60_000,
  baseBlockMs: 60_000,
};

const failure = new GatewayError("invalid_sign_in", 401, "The email or password is not right");

export class SignInThrottle {
  readonly byEmail: AuthThrottle;
  readonly byAddress: AuthThrottle;

  constructor(
    options: { email?: Partial<AuthThrottleOptions>; address?: Partial<AuthThrottleOptions> } = {},
  ) {
    this.byEmail = new AuthThrottle({ ...EMAIL_THROTTLE, ...options.email });
    this.byAddress = new AuthThrottle({ ...ADDRESS_THROTTLE, ...options.address });
  }

  /** Throws 429 when the email or the address is blocked now. */
  check(email: string, address: string, now = Date.now()): void {
    const seconds = Math.max(
      this.byEmail.retryAfter(email, now),
      this.byAddress.retryAfter(address, now),
    );
    if (seconds > 0) throw tooMany(seconds);
  }

  /** Records a failure of both; returns the 429 to answer when this failure started a block. */
  failed(email: string, address: string, now = Date.now()): void {
    this.byEmail.failed(email, failure, now);
    this.byAddress.failed(address, failure, now);
  }
}

function tooMany(seconds: number): GatewayError {
  return new GatewayError(
    "sign_in_rate_limited",
    429,
    `Too many failed sign-ins for this email or from this address; try again in ${seconds} s`,
    { headers: { "retry-after": String(seconds) }, retryable: false },
  );
}
