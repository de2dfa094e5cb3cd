import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { fieldError, type CreateInput, validateCreateInput } from '../validation';

/** A create's parameters read for one item and checked against every rule the API documents, before anything is sent. */

async function readDocument(this: IExecuteFunctions, itemIndex: number, field: string): Promise<Buffer> {
	this.helpers.assertBinaryData(itemIndex, field);
	return await this.helpers.getBinaryDataBuffer(itemIndex, field);
}

/** The request body of a create, without the PIN; a broken rule stops the item naming the parameter. */
export async function readCreateBody(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number): Promise<IDataObject> {
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const metadata = (additional.metadata as IDataObject | undefined)?.entries as CreateInput['metadata'];
	const documentField = typeof additional.paymentReferenceDocumentField === 'string' ? additional.paymentReferenceDocumentField.trim() : '';

	const input: CreateInput = {
		amount: this.getNodeParameter('amount', itemIndex),
		currency: this.getNodeParameter('currency', itemIndex),
		identifierType: this.getNodeParameter('identifierType', itemIndex),
		identifier: this.getNodeParameter('identifier', itemIndex),
		channel: this.getNodeParameter('channel', itemIndex),
		accountType: this.getNodeParameter('accountType', itemIndex, ''),
		accountNumber: additional.accountNumber,
		message: additional.message,
		metadata,
		paymentReferenceNumber: additional.paymentReferenceNumber,
		document: documentField ? await readDocument.call(this, itemIndex, documentField) : undefined,
	};
	const validation = validateCreateInput(resource, input);
	if (!validation.ok) throw fieldError(this.getNode(), validation.problem, itemIndex);
	return validation.body;
}
