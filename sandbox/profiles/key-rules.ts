/** How a profile reads and shows keys: the one part of a profile a management handler asks. */
import type { HashData, IpAccessEntry, KeyRole, KeyState } from '../../lib/schemas';
import type { AssignedRole, KeyRow, SandboxState } from '../store';

/** The role fields of a key create or update, once the profile has read them. */
interface KeyRoleFields {
  roles?: KeyRole[];
  assignedRoles?: AssignedRole[];
}

/** The fields of a key create both profiles share. */
interface KeyCreateFields {
  name: string;
  expireAt?: string | null;
  state?: KeyState;
  hashData?: HashData;
  ipAccessList?: IpAccessEntry[];
}
type KeyUpdateFields = Partial<Omit<KeyCreateFields, 'hashData'>>;

export interface KeyRules {
  /** Validates a create body (400 on failure): the shared fields plus the role fields. */
  parseCreate(body: unknown, state: SandboxState): { body: KeyCreateFields; roles: KeyRoleFields };
  parseUpdate(body: unknown, state: SandboxState): { body: KeyUpdateFields; roles: KeyRoleFields };
  /** Extra fields of the key record view. */
  view(key: KeyRow): Record<string, unknown>;
}
