import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';
import * as create from './create.operation';
import * as deleteRegistration from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';
import * as updateStatus from './updateStatus.operation';
import * as upsert from './upsert.operation';

export const operations = { create, delete: deleteRegistration, getAll, update, updateStatus, upsert } satisfies Record<
	string,
	Operation
>;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['registration'] } },
		options: [
			{
				name: 'Change Status',
				value: 'updateStatus',
				description: "Set a registration's status, with an optional note and attached files",
				action: 'Change the status of a registration',
			},
			{
				name: 'Create',
				value: 'create',
				description: 'Register products for customers, one registration an item; many input items are sent in batches',
				action: 'Create a registration',
			},
			{
				name: 'Create or Update',
				value: 'upsert',
				description: 'Create a new registration, or update the current one if it already exists (upsert)',
				action: 'Create or update a registration',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a registration permanently',
				action: 'Delete a registration',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List registrations, optionally by customer email, customer ID or form',
				action: 'Get many registrations',
			},
			{
				name: 'Update',
				value: 'update',
				description: "Change a registration's fields",
				action: 'Update a registration',
			},
		],
		default: 'create',
	},
	...Object.values(operations).flatMap((operation) => operation.description),
];
