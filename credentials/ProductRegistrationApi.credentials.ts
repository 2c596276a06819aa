import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { BASE_URL_ROOT_EXPRESSION } from '../nodes/shared/serviceUrl';

export class ProductRegistrationApi implements ICredentialType {
	name = 'productRegistrationApi';

	displayName = 'Product Registration API';

	icon: Icon = {
		light: 'file:../nodes/ProductRegistration/productRegistration.svg',
		dark: 'file:../nodes/ProductRegistration/productRegistration.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-product-registration#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://product-reg.varify.xyz',
			description:
				"The root of the app's host, where its API lives under /api/ (the node adds /api/...; a trailing /api or / is fine). Must start with https:// (or http://) and hold no user name or password.",
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Made in the shop admin: Apps > the product-registration app > Settings > General > API Access Token > Generate (older versions of the app: Settings > Advance)',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	// Listing one registration is read-only and needs a valid token, so it proves both the address and the token. It is
	// the first page of Get Many with Limit 1, so the Test calls exactly what the node calls.
	test: ICredentialTestRequest = {
		request: {
			baseURL: BASE_URL_ROOT_EXPRESSION,
			url: '/api/registrations',
			qs: { page: 1, limit: 1 },
		},
	};
}
