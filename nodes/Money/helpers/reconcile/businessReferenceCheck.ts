import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { BUSINESS_REFERENCE_METADATA_FIELD } from '../../../api/values';
import type { TransactionIndex } from './transactionIndex';
import type { ReconcileRecord } from './types';

/**
 * Stops Reconcile where records are to be matched on their Business Reference and no transaction it
 * listed (the period, and the windows searched around it) carries one (docs/decisions.md#d12): the
 * node reads it from the metadata of list rows, which the API documentation does not name among a
 * row's fields. Matching anyway would report every such record missing and every transaction
 * unexpected: an invitation to pay again.
 */
export function checkBusinessReferencesListed(
	this: IExecuteFunctions,
	resource: TransactionResource,
	records: readonly ReconcileRecord[],
	index: TransactionIndex,
): void {
	const { transactions, withMetadata, withBusinessReference } = index.listed;
	if (transactions === 0 || withBusinessReference > 0) return;
	const unmatchable = records.filter((record) => record.businessReference !== undefined && !index.find(record.reference, record.businessReference)).length;
	if (unmatchable === 0) return;
	const listed = `${transactions} ${resource}${transactions === 1 ? '' : 's'}`;
	const these = unmatchable === 1 ? 'the record' : `the ${unmatchable} records`;
	const cause =
		withMetadata === 0
			? `This Money API's list rows carry no metadata, where the node stores the Business Reference ("${BUSINESS_REFERENCE_METADATA_FIELD}"); its documentation does not list metadata among a row's fields.`
			: `The ${resource}s read carry metadata but no "${BUSINESS_REFERENCE_METADATA_FIELD}": they were created without a Business Reference.`;
	throw new NodeOperationError(
		this.getNode(),
		`None of the ${listed} read carries a Business Reference: ${these} to match on Business Reference Field (businessReferenceField) cannot be matched`,
		{
			description: `${cause} Matched anyway, every such record would be reported Missing in API and every ${resource} Unexpected in API, though they may have been paid. Match on the API's reference instead: set Reference Field (referenceField) to the record field that holds the reference Create returned. Nothing was output.`,
		},
	);
}
