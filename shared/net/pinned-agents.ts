import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** A server a request goes to: its name as the URL gives it, and the address checked for it. */
export interface PinnedTarget {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: string;
  /** The address the policy allowed for this request; the connection goes to it and no other. */
  address: string;
  family: number;
  /** Extra trusted CA of the policy, if any: connections made with another are not shared. */
  ca?: string;
}

export interface PinnedAgentLimits {
  /** An unused connection is closed after this long. */
  idleMs: number;
  /** Connections open at once to one target; further requests wait for one. */
  maxSockets: number;
  /** Unused connections kept per target. */
  maxFreeSockets: number;
  /** Targets whose connections are kept; the oldest unused are dropped past it. */
  maxTargets: number;
}

/**
 * Below the 5 s a Node server keeps an unused connection (`keepAliveTimeout`) and the minutes of
 * most proxies, so the server rarely closes one just as a request is sent on it; a server that
 * says less in its Keep-Alive header is believed (Node's agent reads it).
 */
const defaultLimits: PinnedAgentLimits = { idleMs: 4_000, maxSockets: 256, maxFreeSockets: 64, maxTargets: 512 };

/** A lookup that answers the address already checked: a new connection of the pool goes there. */
function lookupOf(target: PinnedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/**
 * Keep-alive connection pools, one per server name and checked address (and scheme, port and
 * CA). A request's name is resolved and every address checked before a pool is chosen
 * (pinned-request.ts), so a pooled connection only carries requests whose own check gave the
 * address it was opened to: a name that now resolves to a refused address is refused, whatever
 * connections to its old address are open, and one that now resolves elsewhere gets a pool of
 * its own. Without this each request paid a TCP connect, and a TLS handshake over https.
 */
export class PinnedAgents {
  readonly #agents = new Map<string, http.Agent>();
  readonly #caIds = new Map<string, number>();
  readonly #limits: PinnedAgentLimits;

  constructor(limits: Partial<PinnedAgentLimits> = {}) {
    this.#limits = { ...defaultLimits, ...limits };
  }

  /** The pool of `target`, and the lookup its new connections use. */
  agentFor(target: PinnedTarget): { agent: http.Agent; lookup: LookupFunction } {
    const key = this.#keyOf(target);
    const found = this.#agents.get(key);
    // Kept in the order of last use, so the oldest unused are the first dropped.
    if (found !== undefined) this.#agents.delete(key);
    const agent = found ?? this.#newAgent(target.protocol);
    this.#agents.set(key, agent);
    if (found === undefined) this.#dropIdle();
    return { agent, lookup: lookupOf(target) };
  }

  /** Pools kept now. */
  get size(): number {
    return this.#agents.size;
  }

  /** Closes every connection, busy or not (the process is stopping, or a test ends). */
  destroy(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }

  #keyOf(target: PinnedTarget): string {
    let caId = 0;
    if (target.ca !== undefined) {
      caId = this.#caIds.get(target.ca) ?? this.#caIds.size + 1;
      this.#caIds.set(target.ca, caId);
    }
    return JSON.stringify([target.protocol, target.hostname, target.port, target.address, caId]);
  }

  #newAgent(protocol: PinnedTarget['protocol']): http.Agent {
    const { idleMs, maxSockets, maxFreeSockets } = this.#limits;
    // `timeout` is how long a connection may sit unused in the pool; the request's own signal
    // bounds a busy one (Node's agent drops only free connections on it).
    const options = { keepAlive: true, timeout: idleMs, maxSockets, maxFreeSockets, scheduling: 'lifo' } as const;
    return protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }

  /** Past `maxTargets`, drops the least recently used pools that carry no request. */
  #dropIdle(): void {
    for (const [key, agent] of this.#agents) {
      if (this.#agents.size <= this.#limits.maxTargets) return;
      const busy = Object.keys(agent.sockets).length > 0 || Object.keys(agent.requests).length > 0;
      if (busy) continue;
      agent.destroy();
      this.#agents.delete(key);
    }
  }
}

/** The process's pools: every pinned request (platforms at user-given hosts, webhooks, media fetches). */
export const pinnedAgents = new PinnedAgents();
