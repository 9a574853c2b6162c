import { currentProfile } from './current';
import type { Profile } from './index';
import type { SandboxProfile } from './names';
import { specProfile } from './spec';

export function profileFor(name: SandboxProfile): Profile {
  return name === 'spec' ? specProfile : currentProfile;
}
