select `t1`.`id` as `c0`, (
  select coalesce(json_arrayagg(json_array(`t2`.`text`)
      order by `t2`.`id`
      limit ?), json_array())
  from `comments` as `t2`
  where `t2`.`article` = `t1`.`id` and (`t2`.`text` is not null and `t2`.`text` <> '')) as `c1`, (
  select json_array((
      select coalesce(json_arrayagg(json_array(`t4`.`title`)
          order by `t4`.`id`
          limit ?), json_array())
      from `articles` as `t4`
      where `t4`.`author` = `t3`.`id` and `t4`.`status` = ?)) as `v`
  from `authors` as `t3`
  where `t3`.`id` = `t1`.`author`) as `c2`
from `articles` as `t1`
where `t1`.`status` = ?
order by `t1`.`id`
limit ?
-- values: [100,100,"published","published",100]
