import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionalText, optionalTextList, requiredText } from '../../helpers/values';
import { batchSender, batchSizeOption } from '../batchCreate';
import { displayFor } from '../displayFor';
import { ItemInput } from '../itemInput';
import { optionsCollection } from '../requestOptions';
import { serialNumberProperty } from './serialNumberFields';

const properties: INodeProperties[] = [
	{ ...serialNumberProperty, description: 'The new serial number' },
	{
		displayName: 'SKU',
		name: 'sku',
		type: 'string',
		default: '',
		placeholder: 'KETTLE-K1',
		description: 'Stock keeping unit of the product this serial number belongs to',
	},
	{
		displayName: 'Customer Tags',
		name: 'customerTags',
		type: 'string',
		default: '',
		placeholder: 'kettle, vip',
		description:
			'Tags given to the customer who registers this serial number: comma-separated text, or a list from an expression',
	},
	optionsCollection([batchSizeOption('serial numbers')]),
];

export const description = displayFor('serialNumber', 'create', properties);

/** One serial number as the API takes it; the tags as the comma-separated text it expects. */
export function toEntry(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const input = new ItemInput(this, itemIndex);
	const entry: IDataObject = { serialNumber: input.parameter('serialNumber', 'Serial Number', requiredText) };
	const sku = input.parameter('sku', 'SKU', optionalText);
	if (sku !== undefined) entry.sku = sku;
	const tags = input.parameter('customerTags', 'Customer Tags', optionalTextList);
	if (tags !== undefined) entry.customerTags = tags.join(',');
	return entry;
}

/** One POST per batch; one result per entry. */
export const sendBatch = batchSender('serial_numbers', 'serialNumbers', 'serial number');
