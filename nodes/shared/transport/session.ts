import type { IExecuteFunctions, ILoadOptionsFunctions, INode, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { BASE_URL_SUFFIX } from '../serviceUrl';
import { executionScoped } from '../executionScope';

export const CREDENTIAL_TYPE = 'productRegistrationApi';

/** A run of the node, a search the editor makes while the user picks a value (From List), or a poll of the trigger. */
export type ServiceContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/**
 * What every request of one run needs from the credential, worked out once per run: n8n reads a credential from its
 * database and decrypts it on every read, and its generic authentication evaluates the credential's header
 * expression on every request — milliseconds each, which dominated runs of many items. Reading it once and sending
 * the header from here also lets each request carry its own deadline (see send.ts). The credential's own
 * `authenticate` stays for its Test button and for the HTTP Request node.
 */
export interface ServiceSession {
	/** The Base URL without `/api` and trailing slashes, or why it cannot be used. */
	root: string | { refusal: string };
	authorization: string;
	/** Kept only to remove it from anything the service echoes back into a message. */
	token: string;
}

interface ProductRegistrationCredentials {
	baseUrl?: unknown;
	accessToken?: unknown;
}

const sessions = executionScoped<Promise<ServiceSession>>();

/** The Base URL's root, or why it is refused: it must be http(s) and hold no user name, password, query or fragment. */
export function serviceRoot(baseUrl: unknown): ServiceSession['root'] {
	let parsed: URL;
	try {
		parsed = new URL(String(baseUrl ?? '').trim());
	} catch {
		return { refusal: 'is not a web address' };
	}
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
		return { refusal: `must start with https:// or http://, not ${parsed.protocol}//` };
	}
	if (parsed.username !== '' || parsed.password !== '') {
		// They would travel beside the token and end up in logs.
		return { refusal: 'must not contain a user name or password; the access token is the only credential needed' };
	}
	if (parsed.search !== '' || parsed.hash !== '')
		return { refusal: 'must not contain a query (?...) or a fragment (#...)' };
	return `${parsed.origin}${parsed.pathname}`.replace(BASE_URL_SUFFIX, '');
}

/** The run's session: the credential is read on the first request of the run and never again in it. */
export async function serviceSession(context: ServiceContext): Promise<ServiceSession> {
	return await sessions.of(context, async () => {
		const credentials = (await context.getCredentials(CREDENTIAL_TYPE)) as ProductRegistrationCredentials;
		const token = String(credentials.accessToken ?? '');
		return { root: serviceRoot(credentials.baseUrl), authorization: `Bearer ${token}`, token };
	});
}

/** The address of an API path (below `/api/`, already encoded where it holds user data) for this session. */
export function serviceUrl(node: INode, session: ServiceSession, path: string, itemIndex: number): string {
	if (typeof session.root !== 'string') {
		throw new NodeOperationError(
			node,
			`The Base URL in the Product Registration API credential ${session.root.refusal}`,
			{
				itemIndex,
				description: 'Use the address of the product-registration app, e.g. https://product-reg.varify.xyz',
			},
		);
	}
	return `${session.root}/api/${path.replace(/^\/+/, '')}`;
}

/** The execution's Stop signal; an editor search and a poll have none. */
export function cancelSignal(context: ServiceContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
}
