import type { ClientState } from '../domain/clients';
import { STATUS_CODES, type LedgerTransaction, type Transaction, type TransactionEnvelope } from '../domain/types';

export interface EnvelopeContext {
	payoutTypeLabel: 'payout' | 'transfer';
	/** Whether envelopes carry `updated_at` (SandboxConfig.envelopeUpdatedAt). */
	updatedAt: boolean;
	/** Timestamps without a zone designator, in this wall time (SandboxConfig.naiveTimestampsOffsetMinutes). */
	naiveTimestampsOffsetMinutes: number | null;
	/** created_at written to the second, its fraction dropped (SandboxConfig.createdAtWrittenToSecond); the store keeps the millisecond. */
	createdAtToSecond: boolean;
	redirectLink(reference: string): string;
}

const CATEGORIES = {
	charge: { id: 'merchant_collection', label: 'Merchant collection' },
	payout: { id: 'merchant_disbursement', label: 'Merchant disbursement' },
} as const;

function timestamp(ms: number, context: EnvelopeContext, toSecond = false): string {
	const offset = context.naiveTimestampsOffsetMinutes;
	const wall = new Date(ms + (offset ?? 0) * 60_000).toISOString();
	const written = toSecond ? `${wall.slice(0, 19)}Z` : wall;
	return offset === null ? written : written.slice(0, -1);
}

export function toEnvelope(tx: Transaction, owner: ClientState | undefined, context: EnvelopeContext): TransactionEnvelope {
	const counterpartName = tx.counterpart.name ?? tx.counterpart.identifier;
	const envelope: TransactionEnvelope = {
		reference: tx.reference,
		unique_id: tx.uniqueId,
		status: { code: STATUS_CODES[tx.status], label: tx.status },
		type: tx.resource === 'charge' ? 'charge' : context.payoutTypeLabel,
		channel: tx.channel,
		amount: { value: tx.resource === 'payout' ? -tx.amount : tx.amount, currency: tx.currency },
		balance_after: { value: tx.balanceAfter, currency: tx.currency },
		counterpart_account: {
			identifier: tx.counterpart.identifier,
			type: tx.counterpart.type,
			channel: tx.channel,
			name: tx.counterpart.name,
		},
		account: { identifier: tx.walletNumber, channel: tx.channel, name: owner?.settings.merchant.name ?? tx.clientId },
		category: { ...CATEGORIES[tx.resource] },
		note: null,
		shared_note: tx.message,
		description: tx.resource === 'charge' ? `Charge from ${counterpartName} via ${tx.channel}` : `Payout to ${counterpartName} via ${tx.channel}`,
		payment_references: tx.paymentReference ? [tx.paymentReference] : [],
		metadata: tx.metadata,
		created_at: timestamp(tx.createdAt, context, context.createdAtToSecond),
	};
	if (context.updatedAt) envelope.updated_at = timestamp(tx.updatedAt, context);
	if (tx.resource === 'charge' && tx.channel === 'platform') envelope.redirect_link = context.redirectLink(tx.reference);
	return envelope;
}

export function toLedgerTransaction(tx: Transaction, owner: ClientState | undefined, context: EnvelopeContext): LedgerTransaction {
	return { ...toEnvelope(tx, owner, context), client_id: tx.clientId, idempotency_key: tx.idempotencyKey };
}
