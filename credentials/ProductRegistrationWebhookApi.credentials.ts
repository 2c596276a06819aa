import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * The webhook trigger's Shared Secret (node version 2): a secret of the user's own making, kept encrypted with n8n's
 * credentials instead of in the workflow, so that it leaves with no export, template or screenshot of the node. The
 * app signs nothing (docs/service.md, The webhook): the secret rides in the URL pasted into its admin. The Test checks
 * that it can ride there unchanged (the trigger's `webhookSecretTest`).
 */
export class ProductRegistrationWebhookApi implements ICredentialType {
	name = 'productRegistrationWebhookApi';

	displayName = 'Product Registration Webhook API';

	icon: Icon = {
		light: 'file:../nodes/ProductRegistrationTrigger/productRegistrationTrigger.svg',
		dark: 'file:../nodes/ProductRegistrationTrigger/productRegistrationTrigger.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-product-registration#trigger';

	properties: INodeProperties[] = [
		{
			displayName: 'Shared Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'A secret you make up: 16 or more letters, digits, -, _, . or ~. Add ?secret=&lt;the secret&gt; to the Production URL you paste into the admin; calls without it get 401.',
		},
	];
}
