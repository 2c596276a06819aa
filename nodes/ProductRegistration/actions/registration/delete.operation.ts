import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ItemInput } from '../../input/itemInput';
import { requestFor } from '../../input/runOptions';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { filledByModelAsTool, toolDescriptionProperty } from '../toolFields';
import {
	BY_REGISTRATION_ID,
	readRegistrationId,
	registrationIdArgument,
	registrationIdProperty,
	registrationTarget,
} from './registrationLocator';

export const description = displayFor('registration', 'delete', [
	toolDescriptionProperty(
		`Delete one registration from the shop's product-registration app for good, ${BY_REGISTRATION_ID}. Answers with deleted: true and the id.`,
	),
	...filledByModelAsTool([registrationIdProperty, optionsCollection([concurrencyOption])], {
		registrationId: registrationIdArgument,
	}),
]);

export const runs = 'perItem';

/** DELETE /api/registrations/:regId; a 200 means it is gone. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const registrationId = readRegistrationId(new ItemInput(this, itemIndex));
	await serviceRequest.call(
		this,
		{ method: 'DELETE', ...registrationTarget(registrationId) },
		requestFor(this, itemIndex),
	);
	return { deleted: true, registrationId };
}
