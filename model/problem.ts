// What blocks progress, as every part of Hostgate says it: a stable code clients branch on and a
// message that tells a person what to do next. `verification.problem` on domain reads, the
// tracks of a move, refusals of the CA and of the edge all have this shape.
export interface Problem { code: string; message: string }
