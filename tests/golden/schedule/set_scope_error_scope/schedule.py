# Only global, shared and local are storage scopes.
b0 = sch.get_block("Y")
sch.set_scope(b0, 0, "register")
