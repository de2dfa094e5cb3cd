import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import type { FieldProblem } from './validation';

/**
 * Metadata key under which creates store the Business Reference, so Reconcile can match a
 * merchant's record that only knows its own order or payout id.
 */
export const BUSINESS_REFERENCE_METADATA_FIELD = 'n8n_business_reference';

/** What a user maps as the Business Reference of a charge or a payout, in the words of the panel and the errors. */
export const yourId = (resource: TransactionResource): string => (resource === 'charge' ? 'order or invoice ID' : 'payout ID');

/**
 * Writes the Business Reference into the create body's metadata, beside the user's own entries.
 * A user entry under the same key with another value is refused: the transaction would carry two
 * identities and Reconcile could pair it with the wrong record. Without a Business Reference the
 * body is left as it is (a user may stamp the key by hand).
 */
export function stampBusinessReference(body: IDataObject, businessReference: string): FieldProblem | undefined {
	if (businessReference === '') return undefined;
	const metadata = (body.metadata as IDataObject | undefined) ?? {};
	const existing = metadata[BUSINESS_REFERENCE_METADATA_FIELD];
	if (existing !== undefined && String(existing) !== businessReference) {
		return {
			parameter: 'additionalFields.metadata',
			label: 'Metadata',
			field: `metadata.${BUSINESS_REFERENCE_METADATA_FIELD}`,
			rule: 'is where the node stores the Business Reference: remove this entry or give it the same value as Business Reference',
		};
	}
	body.metadata = { ...metadata, [BUSINESS_REFERENCE_METADATA_FIELD]: businessReference };
	return undefined;
}

/** The Business Reference a transaction envelope carries in its metadata, if any. */
export function businessReferenceOf(envelope: IDataObject): string | undefined {
	const metadata = envelope.metadata;
	if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
	const value = (metadata as IDataObject)[BUSINESS_REFERENCE_METADATA_FIELD];
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
