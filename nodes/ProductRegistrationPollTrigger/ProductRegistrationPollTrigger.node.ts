import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import { formProperty } from '../shared/formField';
import { searchForms } from '../shared/listSearch';
import { mainConnection } from '../shared/connectionTypes';
import { pollNewRegistrations } from './newRegistrations';

const NEW_REGISTRATION = 'newRegistration';

export class ProductRegistrationPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Product Registration Poll Trigger',
		name: 'productRegistrationPollTrigger',
		icon: { light: 'file:productRegistrationPollTrigger.svg', dark: 'file:productRegistrationPollTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: 'Checks for New Registrations',
		description: 'Starts the workflow with each new registration, checking the service on a schedule',
		defaults: {
			name: 'Product Registration Poll Trigger',
		},
		polling: true,
		inputs: [],
		outputs: [mainConnection],
		credentials: [
			{
				name: 'productRegistrationApi',
				required: true,
			},
		],
		properties: [
			{
				displayName:
					'Asks the service for new registrations at the Poll Times, so n8n needs no public address; each comes with its ID, for Change Status or Update. For registrations the moment they are made, use the Product Registration Trigger (a webhook).',
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Trigger On',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'New Registration',
						value: NEW_REGISTRATION,
						description: 'A customer registered a product (once each, the oldest first)',
					},
				],
				default: NEW_REGISTRATION,
			},
			formProperty('Only registrations made in this form; leave empty for every form'),
		],
	};

	methods = {
		listSearch: { searchForms },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const form = this.getNodeParameter('formSlug', '', { extractValue: true });
		const formSlug = typeof form === 'string' && form.trim() !== '' ? form.trim() : undefined;
		return await pollNewRegistrations.call(this, formSlug);
	}
}
