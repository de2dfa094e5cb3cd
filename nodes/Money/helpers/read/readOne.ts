import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { moneyApiRequest } from '../../../transport/request';
import type { CallSettings } from '../../../transport/request';
import { fieldError, validateReference } from '../validation';

/** Reading one record (a charge, payout, transaction or the account) for one item. */

/** A required reference parameter, trimmed; a missing one stops the item naming the parameter and the API field. */
export function requiredReference(
	this: IExecuteFunctions,
	parameter: { name: string; displayName: string; field: string },
	itemIndex: number,
): string {
	const reference = validateReference(this.getNodeParameter(parameter.name, itemIndex));
	if (!reference) {
		throw fieldError(this.getNode(), { parameter: parameter.name, label: parameter.displayName, field: parameter.field, rule: 'is required' }, itemIndex);
	}
	return reference;
}

/** GET one route with the item's retry and timeout options; the answer's body as the API sent it. */
export async function readOne(
	this: IExecuteFunctions,
	route: string,
	itemIndex: number,
	settings: CallSettings,
): Promise<IDataObject> {
	return await moneyApiRequest.call(this, 'GET', route, { itemIndex, retry: settings.retry, timeoutMs: settings.timeoutMs });
}
