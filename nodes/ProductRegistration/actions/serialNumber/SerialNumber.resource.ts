import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getUnregistered from './getUnregistered.operation';

export const operations = { create, get, getUnregistered } satisfies Record<string, Operation>;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['serialNumber'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Add serial numbers; many input items are sent in batches',
				action: 'Create a serial number',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Look up one serial number; says found: false when the service does not know it',
				action: 'Get a serial number',
			},
			{
				name: 'Get Unregistered',
				value: 'getUnregistered',
				description: 'Hand out a random unregistered serial number, a different one to each item',
				action: 'Get an unregistered serial number',
			},
		],
		default: 'create',
	},
	...Object.values(operations).flatMap((operation) => operation.description),
];
