/** The gateway's name and version: the one place they are written. */

export const GATEWAY_NAME = "model-gateway";
export const GATEWAY_VERSION = "0.9.0";
