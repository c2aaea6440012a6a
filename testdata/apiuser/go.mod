module example.com/apiuser

go 1.26.8

require github.com/delta-memory/delta-memory v0.0.0

replace github.com/delta-memory/delta-memory => ../..
