"""`scons tune`: each dispatch's kernel configuration found by measuring it."""
