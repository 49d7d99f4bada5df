/**
 * Who has an item open (the Studio's editors): the WebSocket protocol's `presence` message, an
 * addition to Directus 10's protocol. A connection joins the room of one item (`{type:
 * 'presence', action: 'join', collection, item, uid}`; the caller must be able to read the
 * item) and leaves it (`action: 'leave'`), or leaves every room when it closes. Whenever a
 * room's members change, each member is told the users in it (`{type: 'presence', collection,
 * item, users: [{id, first_name, last_name}], uid}`, the uid it joined with). Rooms live in
 * this process: with several instances, an editor sees those connected to the same instance.
 */

/** A user as the other members see them: no e-mail, no role. */
export interface PresenceUser {
  readonly id: string;
  readonly first_name: string | null;
  readonly last_name: string | null;
}

interface Member {
  readonly user: PresenceUser;
  readonly tell: (users: readonly PresenceUser[]) => void;
}

export class PresenceRooms {
  readonly #rooms = new Map<string, Map<object, Member>>();

  /** The number of rooms `connection` is in. */
  countOf(connection: object): number {
    let count = 0;
    for (const room of this.#rooms.values()) if (room.has(connection)) count++;
    return count;
  }

  isIn(connection: object, collection: string, item: string): boolean {
    return this.#rooms.get(roomOf(collection, item))?.has(connection) === true;
  }

  join(connection: object, collection: string, item: string, member: Member): void {
    const key = roomOf(collection, item);
    const room = this.#rooms.get(key) ?? new Map<object, Member>();
    this.#rooms.set(key, room);
    room.set(connection, member);
    this.#tell(room);
  }

  leave(connection: object, collection: string, item: string): void {
    const key = roomOf(collection, item);
    const room = this.#rooms.get(key);
    if (room?.delete(connection) !== true) return;
    if (room.size === 0) this.#rooms.delete(key);
    else this.#tell(room);
  }

  /** A closed connection leaves every room it was in. */
  leaveAll(connection: object): void {
    for (const [key, room] of this.#rooms) {
      if (!room.delete(connection)) continue;
      if (room.size === 0) this.#rooms.delete(key);
      else this.#tell(room);
    }
  }

  /** Each member hears the room's users, each user once (an editor with two tabs is one). */
  #tell(room: ReadonlyMap<object, Member>): void {
    const users = new Map<string, PresenceUser>();
    for (const member of room.values()) users.set(member.user.id, member.user);
    const list = [...users.values()];
    for (const member of room.values()) member.tell(list);
  }
}

const roomOf = (collection: string, item: string): string => `${collection}\u0000${item}`;
