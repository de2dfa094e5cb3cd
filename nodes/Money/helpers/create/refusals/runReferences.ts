import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../../../api/values';
import { stampBusinessReference } from '../../businessReference';
import { readCreateBody, readReference } from '../input';
import { stableStringify } from '../request/idempotencyKey';

/**
 * Business References that are not references (docs/idempotency.md): an expression such as
 * `seller-share-{{ $json.missing }}` gives one constant for every row, so the first row is paid
 * and the others come back as that payment (not paid) or are refused. Before anything is sent, a
 * run is refused when rows with different bodies share a reference, or a reference is only
 * whitespace, a number that is not an exact integer, or an expression gave nothing; the error
 * names the rows.
 */

type RunRefusal = (itemIndex: number) => NodeOperationError;

const verdicts = new WeakMap<IExecuteFunctions, Promise<RunRefusal | undefined>>();
const LISTED_ITEMS = 8;

/** "item 2", "items 1, 2 and 3", "items 1, 2, 3, 4, 5, 6 and 94 more" (1-based). */
function itemList(indices: number[]): string {
	const numbers = indices.map((index) => String(index + 1));
	if (numbers.length === 1) return `item ${numbers[0]}`;
	if (numbers.length > LISTED_ITEMS) return `items ${numbers.slice(0, LISTED_ITEMS - 2).join(', ')} and ${numbers.length - LISTED_ITEMS + 2} more`;
	return `items ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
}

async function bodyDigest(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number, reference: string): Promise<string | undefined> {
	try {
		const body = await readCreateBody.call(context, resource, itemIndex);
		stampBusinessReference(body, reference);
		return createHash('sha256').update(stableStringify(body)).digest('hex');
	} catch {
		return undefined; // the item fails on its own, naming its parameter
	}
}

async function findProblems(context: IExecuteFunctions, resource: TransactionResource): Promise<{ parts: string[]; details: IDataObject }> {
	const whitespace: number[] = [];
	const empty: number[] = [];
	const inexact: number[] = [];
	const byReference = new Map<string, number[]>();
	const count = context.getInputData().length;
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		let reading: ReturnType<typeof readReference>;
		try {
			reading = readReference.call(context, itemIndex);
		} catch {
			continue; // an expression error: the item fails on its own
		}
		if (reading.kind === 'whitespace') whitespace.push(itemIndex);
		else if (reading.kind === 'empty') empty.push(itemIndex);
		else if (reading.kind === 'inexactNumber') inexact.push(itemIndex);
		else if (reading.kind === 'reference') byReference.set(reading.value, [...(byReference.get(reading.value) ?? []), itemIndex]);
	}
	const shared: Array<{ reference: string; items: number[] }> = [];
	for (const [reference, items] of byReference) {
		if (items.length < 2) continue;
		const digests = new Set<string>();
		for (const itemIndex of items) {
			const digest = await bodyDigest(context, resource, itemIndex, reference);
			if (digest) digests.add(digest);
		}
		if (digests.size > 1) shared.push({ reference, items });
	}
	const parts = [
		...shared.map(({ reference, items }) => `Business Reference ${JSON.stringify(reference)} is shared by ${itemList(items)}, whose ${resource}s differ`),
		...(whitespace.length > 0 ? [`the Business Reference is only whitespace in ${itemList(whitespace)}`] : []),
		...(empty.length > 0 ? [`the Business Reference expression gave nothing in ${itemList(empty)}`] : []),
		...(inexact.length > 0
			? [`the Business Reference (businessReference) is a number that is not an exact integer in ${itemList(inexact)}: beyond 9007199254740991 a number has lost digits, so two IDs can read as one; map it as text (the ID as a string in the source data)`]
			: []),
	];
	const oneBased = (items: number[]) => items.map((index) => index + 1);
	const details: IDataObject = {
		shared: shared.map(({ reference, items }) => ({ business_reference: reference, items: oneBased(items) })),
		whitespace: oneBased(whitespace),
		empty: oneBased(empty),
		inexact_number: oneBased(inexact),
	};
	return { parts, details };
}

async function verdictOf(context: IExecuteFunctions, resource: TransactionResource): Promise<RunRefusal | undefined> {
	const { parts, details } = await findProblems(context, resource);
	if (parts.length === 0) return undefined;
	const run = resource === 'payout' ? 'Payout run' : 'Charge run';
	const message = `${run} refused, nothing was sent: ${parts.join('; ')}`;
	return (itemIndex) => {
		const error = new NodeOperationError(context.getNode(), message, {
			itemIndex,
			description:
				`A Business Reference is one ${resource}: the Money API answers a reference it has seen with that first ${resource} (the other rows would not be paid) or refuses it (IDEMPOTENCY_CONFLICT). Map a value that is unique per row, such as your order or payout ID, and check that the fields the expression reads exist in every item.`,
		});
		Object.assign(error.context, { attempted: false, error_code: null, field: 'idempotency-key', details });
		return error;
	};
}

/** The run's refusal for this item when the run's Business References are not references; decided once per node run. */
export async function runReferencesRefusal(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number): Promise<NodeOperationError | undefined> {
	let verdict = verdicts.get(context);
	if (!verdict) {
		verdict = verdictOf(context, resource);
		verdicts.set(context, verdict);
	}
	return (await verdict)?.(itemIndex);
}
