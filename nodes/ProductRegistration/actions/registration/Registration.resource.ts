import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['registration'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List registrations, optionally by customer email, customer ID or form',
				action: 'Get many registrations',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
