import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isEmail, listFromBody } from '../../helpers/values';
import { serviceRequest } from '../../transport/serviceRequest';
import { displayFor } from '../displayFor';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Customer Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				description: 'Only registrations made with this email address',
			},
			{
				displayName: 'Customer ID',
				name: 'customerId',
				type: 'number',
				default: 0,
				description: "Only registrations of this customer (the shop platform's customer ID)",
			},
			{
				displayName: 'Form Slug',
				name: 'formSlug',
				type: 'string',
				placeholder: 'warranty-form',
				default: '',
				description:
					'Only registrations made in this form. The slug is shown in the admin under Form > View on the frontend.',
			},
		],
	},
];

export const description = displayFor('registration', 'getAll', properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;

	const qs: IDataObject = {};
	const email = String(filters.email ?? '').trim();
	if (email !== '') {
		if (!isEmail(email)) {
			throw new NodeOperationError(
				this.getNode(),
				`The filter "Customer Email" of item ${itemIndex} is not an email address: "${email}"`,
				{ itemIndex },
			);
		}
		qs.email = email;
	}
	if (filters.customerId !== undefined && filters.customerId !== '') qs.customerId = filters.customerId;
	const formSlug = String(filters.formSlug ?? '').trim();
	if (formSlug !== '') qs.formSlug = formSlug;

	let limit: number | undefined;
	if (!returnAll) {
		limit = this.getNodeParameter('limit', itemIndex, 50) as number;
		qs.limit = limit;
	}

	const { body } = await serviceRequest.call(this, { method: 'GET', path: 'registrations', qs }, itemIndex);
	const registrations = listFromBody(body, 'registrations');
	// The service may ignore `limit`; the user asked for at most that many.
	return limit === undefined ? registrations : registrations.slice(0, limit);
}
