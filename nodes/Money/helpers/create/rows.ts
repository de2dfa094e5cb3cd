import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ACCOUNT_TYPE_FIELD, BUSINESS_REFERENCE_METADATA_FIELD, PARTY_FIELD, type TransactionResource } from '../../../api/values';
import { asNodeError, type NodeError } from '../../../transport/errors';
import { type CallSettings, callSettingsOf } from '../../../transport/request';
import { type CreateInput, fieldError, type FieldProblem, PARTY_PARAMETERS, validateCreateInput } from '../validation';

/** What the Business Reference parameter gives for one row. */
export type ReferenceReading =
	| { kind: 'reference'; value: string }
	/** Not set: the parameter is empty and not an expression. */
	| { kind: 'none' }
	| { kind: 'whitespace' }
	/** A number that is not an exact integer: beyond Number.MAX_SAFE_INTEGER two IDs read as one. */
	| { kind: 'inexactNumber' }
	/** An expression that gave nothing usable (empty, null, a list, an object). */
	| { kind: 'empty' }
	/** The expression failed: the row fails with its error. */
	| { kind: 'unreadable'; error: unknown };

/** One input row of a create run, read once before anything is sent. */
export interface CreateRow {
	itemIndex: number;
	reference: ReferenceReading;
	/** The row's Business Reference, '' when it has none that is a reference. */
	businessReference: string;
	/** The create body without the PIN, the Business Reference stamped into its metadata; absent when the row breaks a rule. */
	body?: IDataObject;
	/** Why the row cannot be sent as given (a field rule, an expression that fails). */
	error?: NodeError;
	pin: string;
	options: IDataObject;
	call: CallSettings;
	/** The row's value of Preview Only (one switch for the run, refused when a row differs). */
	preview: unknown;
	/** Whose payment it is and how much (identityOf): of the body, or as the item gives it when it breaks a rule. */
	identity: IDataObject;
}

/**
 * Whose payment a create item is, how much, and the Business Reference: flat, so that n8n's table
 * shows each as a column (`payer_…` on a charge), every key on every item, null when not set (the
 * table takes its columns from the keys in the order it first meets them).
 */
export function identityOf(resource: TransactionResource, body: IDataObject, businessReference: string): IDataObject {
	const party = (body[PARTY_FIELD[resource]] ?? {}) as IDataObject;
	const orNull = (value: unknown) => (value === undefined || value === '' ? null : (value as IDataObject[string]));
	return {
		[PARTY_FIELD[resource]]: orNull(party.identifier),
		[`${PARTY_FIELD[resource]}_type`]: orNull(party.type),
		[ACCOUNT_TYPE_FIELD[resource]]: orNull(body[ACCOUNT_TYPE_FIELD[resource]]),
		amount: body.amount as IDataObject[string],
		currency: body.currency as IDataObject[string],
		channel: body.channel as IDataObject[string],
		business_reference: businessReference !== '' ? businessReference : null,
	};
}

/** The identity of a row that breaks a rule: each value as the item gives it, null where it cannot be read. */
function identityAsGiven(context: IExecuteFunctions, resource: TransactionResource, row: CreateRow): IDataObject {
	const given = (name: string): IDataObject[string] => {
		try {
			const value = context.getNodeParameter(name, row.itemIndex, null) as IDataObject[string];
			return value === undefined || value === '' ? null : value;
		} catch {
			return null;
		}
	};
	const names = PARTY_PARAMETERS[resource];
	const body = { amount: given('amount'), currency: given('currency'), channel: given('channel'), [ACCOUNT_TYPE_FIELD[resource]]: given(names.accountType) };
	return identityOf(resource, { ...body, [PARTY_FIELD[resource]]: { identifier: given(names.identifier), type: given(names.identifierType) } }, row.businessReference);
}

/**
 * The Business Reference is the payment's identity across runs (docs/decisions.md#d4): a value that
 * is only whitespace, a number that is not an exact integer, or a mapped value that gives nothing,
 * is not one (the run is refused, never sent under a per-run key or "[object Object]").
 */
function readReference(context: IExecuteFunctions, itemIndex: number): ReferenceReading {
	let value: unknown;
	try {
		value = context.getNodeParameter('businessReference', itemIndex, '');
	} catch (error) {
		return { kind: 'unreadable', error };
	}
	if (typeof value === 'number') return Number.isSafeInteger(value) ? { kind: 'reference', value: String(value) } : { kind: 'inexactNumber' };
	if (typeof value === 'string' && value.trim() !== '') return { kind: 'reference', value: value.trim() };
	if (typeof value === 'string' && value !== '') return { kind: 'whitespace' };
	const configured = context.getNode().parameters.businessReference;
	return typeof configured === 'string' && configured.startsWith('=') ? { kind: 'empty' } : { kind: 'none' };
}

/** The request body of a create, without the PIN; a broken rule throws the item's field error. */
async function readBody(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number): Promise<IDataObject> {
	const additional = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const documentField = typeof additional.paymentReferenceDocumentField === 'string' ? additional.paymentReferenceDocumentField.trim() : '';
	let document: Buffer | undefined;
	if (documentField) {
		context.helpers.assertBinaryData(itemIndex, documentField);
		document = await context.helpers.getBinaryDataBuffer(itemIndex, documentField);
	}
	const party = PARTY_PARAMETERS[resource];
	const input: CreateInput = {
		amount: context.getNodeParameter('amount', itemIndex),
		currency: context.getNodeParameter('currency', itemIndex),
		identifierType: context.getNodeParameter(party.identifierType, itemIndex),
		identifier: context.getNodeParameter(party.identifier, itemIndex),
		channel: context.getNodeParameter('channel', itemIndex),
		accountType: context.getNodeParameter(party.accountType, itemIndex, ''),
		accountNumber: additional.accountNumber,
		message: additional.message,
		metadata: (additional.metadata as IDataObject | undefined)?.entries as CreateInput['metadata'],
		paymentReferenceNumber: additional.paymentReferenceNumber,
		document,
	};
	const validation = validateCreateInput(resource, input);
	if (!validation.ok) throw fieldError(context.getNode(), validation.problem, itemIndex);
	return validation.body;
}

/**
 * Writes the Business Reference into the create body's metadata, beside the user's own entries.
 * A user entry under the same key with another value is refused: the transaction would carry two
 * identities and Reconcile could pair it with the wrong record. Without a Business Reference the
 * body is left as it is (a user may stamp the key by hand).
 */
function stampBusinessReference(body: IDataObject, businessReference: string): FieldProblem | undefined {
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

/** The wallet PIN: the node's Wallet PIN option, else the credential's; never from item data. */
function pinOf(context: IExecuteFunctions, options: IDataObject, credentials: ICredentialDataDecryptedObject, itemIndex: number): string {
	const pin = typeof options.walletPin === 'string' && options.walletPin !== '' ? options.walletPin : String(credentials.walletPinSecret ?? '');
	if (pin !== '') return pin;
	const rule = 'is missing: set Wallet PIN in the Money API credential (or the Wallet PIN option of this node)';
	throw fieldError(context.getNode(), { parameter: 'options', label: 'Wallet PIN', field: 'pin', rule }, itemIndex);
}

async function readRow(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number, credentials: ICredentialDataDecryptedObject): Promise<CreateRow> {
	const preview = context.getNodeParameter('preview', itemIndex, false);
	const reference = readReference(context, itemIndex);
	const businessReference = reference.kind === 'reference' ? reference.value : '';
	const row: CreateRow = { itemIndex, reference, businessReference, pin: '', options: {}, call: callSettingsOf({}), preview, identity: {} };
	try {
		row.options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
		row.call = callSettingsOf(row.options);
		const body = await readBody(context, resource, itemIndex);
		if (reference.kind === 'unreadable') throw reference.error;
		const stampProblem = stampBusinessReference(body, businessReference);
		if (stampProblem) throw fieldError(context.getNode(), stampProblem, itemIndex);
		row.pin = pinOf(context, row.options, credentials, itemIndex);
		row.body = body;
	} catch (error) {
		row.error = asNodeError(context.getNode(), error, itemIndex);
	}
	row.identity = row.body ? identityOf(resource, row.body, businessReference) : identityAsGiven(context, resource, row);
	return row;
}

/** Every input row of the run, read once: its body and checks, its Business Reference, its settings. */
export async function readRows(context: IExecuteFunctions, resource: TransactionResource, credentials: ICredentialDataDecryptedObject): Promise<CreateRow[]> {
	const rows: CreateRow[] = [];
	const count = context.getInputData().length;
	for (let itemIndex = 0; itemIndex < count; itemIndex++) rows.push(await readRow(context, resource, itemIndex, credentials));
	return rows;
}
