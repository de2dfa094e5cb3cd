import type { ClientRegistry } from './clients';
import type { SandboxClock } from './clock';
import type { Directory } from './directory';
import { randomId } from './random';
import type { TransactionStore } from './store';
import { CHANNELS, type SeedRequest, type Status, type Transaction } from './types';

/** What seeding writes to and reads from (the runtime has all of it). */
export interface SeedTarget {
	clients: ClientRegistry;
	clock: SandboxClock;
	directory: Directory;
	store: TransactionStore;
}

/**
 * Bulk insert for the control API (POST /seed): `count` transactions of one client spread evenly
 * in time, cycling through eligible counterparts, channels and (unless given) statuses; no balance
 * moves, no webhooks. Returns the count.
 */
export function seedTransactions(request: SeedRequest, target: SeedTarget): number {
	const client = request.clientId ? target.clients.get(request.clientId) : target.clients.primary();
	if (!client) throw new Error(`unknown client ${request.clientId}`);
	const count = Math.max(0, Math.floor(request.count));
	const wallet = client.settings.wallets[0];
	const to = request.createdAtTo ? Date.parse(request.createdAtTo) : target.clock.now();
	const from = request.createdAtFrom ? Date.parse(request.createdAtFrom) : to - count * 1000;
	if (Number.isNaN(from) || Number.isNaN(to)) throw new Error('createdAtFrom/createdAtTo must be ISO 8601');
	const step = count > 1 ? (to - from) / (count - 1) : 0;
	const counterparts = target.directory.eligibleEntries();
	const statuses: Status[] = ['COMPLETED', 'PENDING', 'FAILED', 'CANCELLED'];
	const prefix = randomId(request.resource === 'charge' ? 'chg_s' : 'pay_s', 4);
	const txs: Transaction[] = [];
	for (let index = 0; index < count; index++) {
		const entry = counterparts[index % counterparts.length];
		const createdAt = Math.round(from + step * index);
		txs.push({
			reference: `${prefix}${index.toString(36).padStart(6, '0')}`,
			uniqueId: `TXNS${prefix.slice(5)}${index.toString(36).padStart(6, '0')}`.toUpperCase(),
			clientId: client.clientId,
			resource: request.resource,
			status: request.status ?? statuses[index % statuses.length],
			amount: request.amount ?? 1000 + (index % 97) * 100,
			currency: wallet.currency,
			channel: request.channel ?? CHANNELS[index % CHANNELS.length],
			counterpart: { identifier: entry.identifier, type: entry.type, accountType: entry.accountType, name: entry.name },
			walletNumber: wallet.number,
			message: null,
			paymentReference: null,
			metadata: request.metadata ? { ...request.metadata } : { seeded: true },
			idempotencyKey: null,
			createdAt,
			updatedAt: createdAt,
			balanceAfter: wallet.balance,
			seq: target.store.allocateSeq(),
		});
	}
	target.store.addMany(client.clientId, request.resource, txs);
	return count;
}
