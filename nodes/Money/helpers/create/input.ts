import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ACCOUNT_TYPE_FIELD, PARTY_FIELD, type TransactionResource } from '../../../api/values';
import type { CallSettings, OperationContext } from '../../actions/node.type';
import { stampBusinessReference } from '../businessReference';
import { fieldError, type CreateInput, PARTY_PARAMETERS, validateCreateInput } from '../validation';

/** One item's create, its parameters read once and checked against every rule the API documents, before anything is sent. */
export interface CreateRequest {
	resource: TransactionResource;
	itemIndex: number;
	/** The request body without the PIN, the Business Reference stamped into its metadata. */
	body: IDataObject;
	/** '' when none. */
	businessReference: string;
	pin: string;
	options: IDataObject;
	/** With the node run's credential (OperationContext.credential): every call of this create goes with it. */
	settings: CallSettings;
	/** An AI agent runs the node as a tool. */
	toolMode: boolean;
}

async function readDocument(this: IExecuteFunctions, itemIndex: number, field: string): Promise<Buffer> {
	this.helpers.assertBinaryData(itemIndex, field);
	return await this.helpers.getBinaryDataBuffer(itemIndex, field);
}

/** The request body of a create, without the PIN; a broken rule stops the item naming the parameter. */
export async function readCreateBody(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number): Promise<IDataObject> {
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const metadata = (additional.metadata as IDataObject | undefined)?.entries as CreateInput['metadata'];
	const documentField = typeof additional.paymentReferenceDocumentField === 'string' ? additional.paymentReferenceDocumentField.trim() : '';

	const party = PARTY_PARAMETERS[resource];
	const input: CreateInput = {
		amount: this.getNodeParameter('amount', itemIndex),
		currency: this.getNodeParameter('currency', itemIndex),
		identifierType: this.getNodeParameter(party.identifierType, itemIndex),
		identifier: this.getNodeParameter(party.identifier, itemIndex),
		channel: this.getNodeParameter('channel', itemIndex),
		accountType: this.getNodeParameter(party.accountType, itemIndex, ''),
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

function describeReference(value: unknown): string {
	if (value === undefined || value === null) return 'nothing';
	if (typeof value === 'string') return 'an empty text';
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

/** What the Business Reference parameter gives for one item. */
type ReferenceReading =
	| { kind: 'reference'; value: string }
	/** Not set: the parameter is empty and not an expression. */
	| { kind: 'none' }
	| { kind: 'whitespace' }
	/** A number that is not an exact integer: beyond Number.MAX_SAFE_INTEGER two IDs read as one. */
	| { kind: 'inexactNumber'; given: string }
	/** An expression that gave nothing usable (empty, null, a list, an object). */
	| { kind: 'empty'; given: string };

/**
 * The Business Reference is the payment's identity across runs (docs/decisions.md#d4). A value that
 * is only whitespace, a number that is not an exact integer (an ID of 64 bits read from JSON as a
 * number has lost its last digits), or a mapped value that gives nothing or a non-scalar, is not a reference: the
 * create is refused (refusals/runReferences.ts), never sent under a per-run key or "[object Object]".
 */
export function readReference(this: IExecuteFunctions, itemIndex: number): ReferenceReading {
	const value = this.getNodeParameter('businessReference', itemIndex, '') as unknown;
	if (typeof value === 'number') return Number.isSafeInteger(value) ? { kind: 'reference', value: String(value) } : { kind: 'inexactNumber', given: String(value) };
	if (typeof value === 'string' && value.trim() !== '') return { kind: 'reference', value: value.trim() };
	if (typeof value === 'string' && value !== '') return { kind: 'whitespace' };
	const configured = this.getNode().parameters.businessReference;
	const isMapped = typeof configured === 'string' && configured.startsWith('=');
	return isMapped ? { kind: 'empty', given: describeReference(value) } : { kind: 'none' };
}

/** The item's Business Reference, '' when it has none (or none that is a reference: refused before anything is sent). */
export function readBusinessReference(this: IExecuteFunctions, itemIndex: number): string {
	const reading = readReference.call(this, itemIndex);
	return reading.kind === 'reference' ? reading.value : '';
}

/** One row's payment as a create item names it, each value as sent or as the item gives it. */
export interface RowValues {
	amount: unknown;
	currency: unknown;
	identifier: unknown;
	identifierType: unknown;
	accountType: unknown;
	channel: unknown;
}

/**
 * Whose payment a create item is, how much, and the Business Reference: what an operator reads
 * first in a run's output (after what happened), on a success and a failure alike. Flat, so that
 * n8n's table shows each as a column (`payer_…` on a charge). Every item has every key, null when
 * not set: the table takes its columns from the keys in the order it first meets them.
 */
export function rowIdentity(resource: TransactionResource, row: RowValues, businessReference: string): IDataObject {
	const party = PARTY_FIELD[resource];
	const orNull = (value: unknown) => (value === undefined || value === '' ? null : (value as IDataObject[string]));
	return {
		[party]: orNull(row.identifier),
		[`${party}_type`]: orNull(row.identifierType),
		[ACCOUNT_TYPE_FIELD[resource]]: orNull(row.accountType),
		amount: row.amount as IDataObject[string],
		currency: row.currency as IDataObject[string],
		channel: row.channel as IDataObject[string],
		business_reference: businessReference !== '' ? businessReference : null,
	};
}

/**
 * The identity of a row refused before its request was built (amount "abc", a missing party):
 * each value as the item gives it, null where it cannot be read (an expression that fails).
 */
export function rowAsGiven(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number): IDataObject {
	const given = (read: () => unknown): unknown => {
		try {
			const value = read();
			return value === undefined || value === '' ? null : value;
		} catch {
			return null;
		}
	};
	const parameter = (name: string) => given(() => this.getNodeParameter(name, itemIndex, null));
	const businessReference = given(() => readBusinessReference.call(this, itemIndex));
	const names = PARTY_PARAMETERS[resource];
	const row = {
		amount: parameter('amount'),
		currency: parameter('currency'),
		identifier: parameter(names.identifier),
		identifierType: parameter(names.identifierType),
		accountType: parameter(names.accountType),
		channel: parameter('channel'),
	};
	return rowIdentity(resource, row, typeof businessReference === 'string' ? businessReference : '');
}

/** The wallet PIN: the node's Wallet PIN option, else the credential's. Never from item data. */
function walletPinOf(this: IExecuteFunctions, options: IDataObject, itemIndex: number, credentials: ICredentialDataDecryptedObject): string {
	const overridePin = typeof options.walletPin === 'string' ? options.walletPin : '';
	const pin = overridePin !== '' ? overridePin : String(credentials.walletPinSecret ?? '');
	if (pin === '') {
		throw fieldError(
			this.getNode(),
			{ parameter: 'options', label: 'Wallet PIN', field: 'pin', rule: 'is missing: set Wallet PIN in the Money API credential (or the Wallet PIN option of this node)' },
			itemIndex,
		);
	}
	return pin;
}

/** Reads one item's create: its body (the Business Reference stamped into the metadata), the reference, the PIN, the Options. */
export async function readCreate(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number, context: OperationContext): Promise<CreateRequest> {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body = await readCreateBody.call(this, resource, itemIndex);
	const businessReference = readBusinessReference.call(this, itemIndex);
	const stampProblem = stampBusinessReference(body, businessReference);
	if (stampProblem) throw fieldError(this.getNode(), stampProblem, itemIndex);
	const credential = await context.credential();
	const pin = walletPinOf.call(this, options, itemIndex, credential.data ?? {});
	const settings = { ...context.callSettings(itemIndex), credential };
	return { resource, itemIndex, body, businessReference, pin, options, settings, toolMode: context.isToolMode };
}
