import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isObject } from '../../../transport/failures';
import { callSettingsOf, moneyApiRequest } from '../../../transport/request';
import { withoutEnvelopeFlags } from '../simplify';
import { fieldError, validateReference } from '../validation';

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

/**
 * One record (a charge, payout, transaction or the account) for one item: GET `route` with the
 * item's Options; the record (a charge's or payout's `data`, else the flat answer without its
 * envelope flags), simplified while Simplify is on.
 */
export async function readOne(this: IExecuteFunctions, route: string, itemIndex: number, simplify: (record: IDataObject) => IDataObject): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const answer = await moneyApiRequest.call(this, 'GET', route, { itemIndex, ...callSettingsOf(options) });
	const record = isObject(answer.data) ? answer.data : withoutEnvelopeFlags(answer);
	return [{ json: this.getNodeParameter('simplify', itemIndex, true) === false ? record : simplify(record), pairedItem: { item: itemIndex } }];
}
