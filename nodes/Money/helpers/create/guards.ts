import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import type { OperationContext } from '../../actions/node.type';
import { refusalWithoutReference } from '../rerunRefusals';
import { fieldError } from '../validation';

/** What must hold before a create may be sent: tool-mode consent, a PIN, a usable Business Reference. */

/** An AI agent may create only when the node allows it, and up to its maximum amount. */
export function guardToolMode(
	this: IExecuteFunctions,
	resource: TransactionResource,
	amount: number,
	itemIndex: number,
): void {
	const allowed = this.getNodeParameter('allowMoneyMovementInToolMode', itemIndex, false) as boolean;
	if (allowed !== true) {
		throw new NodeOperationError(
			this.getNode(),
			`Creating a ${resource} is turned off while the Money node runs as an AI tool`,
			{
				itemIndex,
				description:
					'Turn on "Allow Money Movement in Tool Mode" and set "Maximum Amount in Tool Mode" on this node to let an agent move money.',
			},
		);
	}
	const maximum = Number(this.getNodeParameter('maxAmountInToolMode', itemIndex, 0));
	if (!(amount <= maximum)) {
		throw new NodeOperationError(
			this.getNode(),
			`Amount ${amount} is above the Maximum Amount in Tool Mode (${maximum}); the ${resource} was not created`,
			{ itemIndex, description: 'Raise "Maximum Amount in Tool Mode" on this node if the agent should move more.' },
		);
	}
}

/** The wallet PIN: the node's Wallet PIN option, else the credential's. Never from item data. */
export async function walletPinOf(
	this: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
	context: OperationContext,
): Promise<string> {
	const credentials = await context.credentials();
	const overridePin = typeof options.walletPin === 'string' ? options.walletPin : '';
	const pin = overridePin !== '' ? overridePin : String(credentials.walletPinSecret ?? '');
	if (pin === '') {
		throw fieldError(
			this.getNode(),
			{ parameter: 'Wallet PIN', field: 'pin', rule: 'is missing: set Wallet PIN in the Money API credential (or the Wallet PIN option of this node)' },
			itemIndex,
		);
	}
	return pin;
}

function describeReference(value: unknown): string {
	if (value === undefined || value === null) return 'nothing';
	if (typeof value === 'string') return 'an empty text';
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

/** What the Business Reference parameter gives for one item. */
export type ReferenceReading =
	| { kind: 'reference'; value: string }
	/** Not set: the parameter is empty and not an expression. */
	| { kind: 'none' }
	| { kind: 'whitespace' }
	/** An expression that gave nothing usable (empty, null, a list, an object). */
	| { kind: 'empty'; given: string };

export function readReference(this: IExecuteFunctions, itemIndex: number): ReferenceReading {
	const value = this.getNodeParameter('businessReference', itemIndex, '') as unknown;
	if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'reference', value: String(value) };
	if (typeof value === 'string' && value.trim() !== '') return { kind: 'reference', value: value.trim() };
	if (typeof value === 'string' && value !== '') return { kind: 'whitespace' };
	const configured = this.getNode().parameters.businessReference;
	const isMapped = typeof configured === 'string' && configured.startsWith('=');
	return isMapped ? { kind: 'empty', given: describeReference(value) } : { kind: 'none' };
}

/**
 * The business reference is the payment's identity across runs (docs/decisions.md#d4). A value that
 * is only whitespace, or a mapped value that resolves to nothing or to a non-scalar, must stop the
 * item: falling back to a per-execution key would let a re-run pay again, and "[object Object]"
 * would give unrelated items one key.
 */
export function readBusinessReference(this: IExecuteFunctions, itemIndex: number): string {
	const reading = readReference.call(this, itemIndex);
	if (reading.kind === 'reference') return reading.value;
	if (reading.kind === 'none') return '';
	throw fieldError(
		this.getNode(),
		{
			parameter: 'Business Reference',
			field: 'idempotency-key',
			rule:
				reading.kind === 'whitespace'
					? 'is only whitespace: map your own order or payout ID, or leave it empty'
					: `must be a non-empty text or number when set; the expression gave ${reading.given}`,
		},
		itemIndex,
	);
}

/**
 * The item's Business Reference ('' when none), after the refusals that protect a create without
 * one: in a sub-workflow, in a Retry replaying a run n8n lost in a crash (helpers/rerunRefusals.ts),
 * and the node's setting Require Business Reference in production executions (docs/decisions.md#d8).
 */
export function businessReferenceOf(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number): string {
	const businessReference = readBusinessReference.call(this, itemIndex);
	if (businessReference !== '') return businessReference;
	const refusal = refusalWithoutReference(this, resource, itemIndex);
	if (refusal) throw refusal;
	if (this.getNodeParameter('requireBusinessReference', itemIndex, true) !== false && this.getMode() !== 'manual') {
		throw fieldError(
			this.getNode(),
			{
				parameter: 'Business Reference',
				field: 'idempotency-key',
				rule: 'is required in production executions by this node\'s setting "Require Business Reference" (on by default): map your own order or payout ID, or turn the setting off',
			},
			itemIndex,
		);
	}
	return businessReference;
}
