/**
 * What is cut from the end of the credential's Base URL before `/api/...` is appended: trailing slashes and one
 * trailing `/api`, since people paste the address either way. The node and the credential's Test request both use
 * this one pattern, so the Test calls exactly the URL the node calls.
 */
export const BASE_URL_SUFFIX = /(\/api)?\/*$/;

/** The credential's Test request reads the Base URL through n8n's expression engine, which takes the same rule as text. */
export const BASE_URL_ROOT_EXPRESSION = `={{String($credentials.baseUrl).trim().replace(/${BASE_URL_SUFFIX.source}/, "")}}`;
