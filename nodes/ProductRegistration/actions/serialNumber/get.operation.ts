import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { asObject, pathSegmentText } from '../../helpers/values';
import { serviceRequest } from '../../transport/serviceRequest';
import { displayFor } from '../displayFor';
import { ItemInput } from '../itemInput';
import { concurrencyOption, optionsCollection } from '../requestOptions';
import { serialNumberPath, serialNumberProperty } from './serialNumberFields';

export const description = displayFor('serialNumber', 'get', [
	{ ...serialNumberProperty, description: `${serialNumberProperty.description}. The output says found: true or false.` },
	optionsCollection([concurrencyOption]),
]);

/** GET /api/serial_numbers/{serialNumber}: 200 is the serial's data, 204 means the service does not know it. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const serialNumber = new ItemInput(this, itemIndex).parameter('serialNumber', 'Serial Number', pathSegmentText);
	const { statusCode, body } = await serviceRequest.call(
		this,
		{ method: 'GET', path: serialNumberPath(serialNumber) },
		itemIndex,
	);
	if (statusCode === 204) return { found: false, serialNumber };
	return { ...asObject(body), found: true };
}
