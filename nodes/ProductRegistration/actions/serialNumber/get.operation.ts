import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ItemInput } from '../../input/itemInput';
import { asObject } from '../../../shared/transport/answerShapes';
import { pathSegmentText } from '../../helpers/values';
import { requestFor } from '../../input/runOptions';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { filledByModelAsTool, toolDescriptionProperty } from '../toolFields';
import { serialNumberArgument, serialNumberPath, serialNumberProperty } from './serialNumberFields';

export const description = displayFor('serialNumber', 'get', [
	toolDescriptionProperty(
		"Look up one serial number in the shop's product-registration app, exactly as printed on the product. Answers with found: true and what the app holds for it (e.g. whether it is registered), or found: false when the app does not know it.",
	),
	...filledByModelAsTool(
		[
			// A plain field, not a resource locator: the API lists no serial numbers, it only looks one up by its value
			// (docs/service.md, Serial numbers), so there is no list to pick from and the value is its own ID.
			{
				...serialNumberProperty,
				description: `${serialNumberProperty.description}. Typed or mapped: the service lists no serial numbers to pick from, it looks one up by its value. The output says found: true or false.`,
			},
			optionsCollection([concurrencyOption]),
		],
		{ serialNumber: serialNumberArgument },
	),
]);

export const runs = 'perItem';

/** GET /api/serial_numbers/{serialNumber}: 200 is the serial's data, 204 means the service does not know it. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const serialNumber = new ItemInput(this, itemIndex).parameter('serialNumber', "'Serial Number'", pathSegmentText);
	const { statusCode, body } = await serviceRequest.call(
		this,
		{ method: 'GET', path: serialNumberPath(serialNumber) },
		requestFor(this, itemIndex),
	);
	if (statusCode === 204) return { found: false, serialNumber };
	return { ...asObject(body), found: true };
}
